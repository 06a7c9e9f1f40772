-- The monthly quota is counted without making concurrent creations of one organization wait for
-- one another. Before, every creation of a limited plan updated the organization's one
-- monthly_usage row and held its lock until its commit, WAL flush included: creations of one
-- organization committed one at a time. Now a creation counts in its connection's shard
-- (monthly_usage_shards), within the allowance that shard took from the month's allotment
-- (monthly_allotments, never more than the quota); only taking allowance locks the allotment.
-- The limit is still exact: a shard never uses more than its allowance, and the allowances never
-- add up to more than the quota; when all of it is allotted, a creation takes back what the
-- shards have not used (locking them in shard order) before it is refused.
CREATE TABLE "monthly_allotments" (
	"org_id" uuid NOT NULL,
	"month" date NOT NULL,
	"allotted" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "monthly_allotments_org_id_month_pk" PRIMARY KEY("org_id","month")
);
--> statement-breakpoint
CREATE TABLE "monthly_usage_shards" (
	"org_id" uuid NOT NULL,
	"month" date NOT NULL,
	"shard" smallint NOT NULL,
	"used" integer DEFAULT 0 NOT NULL,
	"allowance" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "monthly_usage_shards_org_id_month_shard_pk" PRIMARY KEY("org_id","month","shard"),
	CONSTRAINT "monthly_usage_shards_within_allowance" CHECK ("monthly_usage_shards"."used" <= "monthly_usage_shards"."allowance")
);
--> statement-breakpoint
-- What was counted so far: all of it used, all of it allotted.
INSERT INTO "monthly_usage_shards" ("org_id", "month", "shard", "used", "allowance")
  SELECT "org_id", "month", 0, "notifications", "notifications" FROM "monthly_usage";--> statement-breakpoint
INSERT INTO "monthly_allotments" ("org_id", "month", "allotted")
  SELECT "org_id", "month", "notifications" FROM "monthly_usage";--> statement-breakpoint
DROP TABLE "monthly_usage" CASCADE;--> statement-breakpoint
ALTER TABLE "monthly_allotments" ADD CONSTRAINT "monthly_allotments_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monthly_usage_shards" ADD CONSTRAINT "monthly_usage_shards_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The notifications counted per organization and month, as monthly_usage was.
CREATE VIEW "monthly_usage" AS
  SELECT "org_id", "month", sum("used")::integer AS "notifications"
    FROM "monthly_usage_shards" GROUP BY "org_id", "month";--> statement-breakpoint
CREATE OR REPLACE FUNCTION beckon_count_notification() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_quota integer;
  usage_month date := date_trunc('month', NEW.created_at AT TIME ZONE 'UTC')::date;
  -- A connection keeps its shard: creations on other connections count in other rows.
  my_shard smallint := pg_backend_pid() % 64;
  v_allotted integer;
  total_used integer;
  grant_size integer;
BEGIN
  SELECT p.monthly_notifications INTO v_quota
    FROM subscriptions s JOIN plans p ON p.id = s.plan_id
   WHERE s.org_id = NEW.org_id;
  IF v_quota IS NULL THEN
    RETURN NEW;
  END IF;
  -- Within the shard's allowance: only the shard's row is locked.
  UPDATE monthly_usage_shards SET used = used + 1
   WHERE org_id = NEW.org_id AND month = usage_month AND shard = my_shard AND used < allowance;
  IF FOUND THEN
    RETURN NEW;
  END IF;
  -- More allowance from the month's allotment, whose row stays locked until this commits.
  INSERT INTO monthly_allotments AS a (org_id, month, allotted) VALUES (NEW.org_id, usage_month, 0)
  ON CONFLICT (org_id, month) DO UPDATE SET allotted = a.allotted
  RETURNING a.allotted INTO v_allotted;
  IF v_allotted >= v_quota THEN
    -- All of it is allotted: take back what the shards have not used (each waits for the
    -- creation that holds it), then count exactly.
    SELECT coalesce(sum(used), 0)::integer INTO total_used
      FROM (SELECT used FROM monthly_usage_shards
             WHERE org_id = NEW.org_id AND month = usage_month ORDER BY shard FOR UPDATE) AS held;
    IF total_used >= v_quota THEN
      RAISE EXCEPTION 'monthly notification quota exhausted'
        USING ERRCODE = 'BK402',
              DETAIL = json_build_object('key', 'monthly_notifications', 'limit', v_quota,
                                         'current', total_used)::text;
    END IF;
    UPDATE monthly_usage_shards SET allowance = used
     WHERE org_id = NEW.org_id AND month = usage_month AND allowance > used;
    v_allotted := total_used;
  END IF;
  -- A share of what is left (one at a time near the limit, so none sits unused in a shard).
  grant_size := least(100, greatest(1, (v_quota - v_allotted) / 32));
  UPDATE monthly_allotments SET allotted = v_allotted + grant_size
   WHERE org_id = NEW.org_id AND month = usage_month;
  INSERT INTO monthly_usage_shards AS s (org_id, month, shard, used, allowance)
  VALUES (NEW.org_id, usage_month, my_shard, 1, grant_size)
  ON CONFLICT (org_id, month, shard) DO UPDATE SET used = s.used + 1, allowance = s.allowance + grant_size;
  RETURN NEW;
END $$;
