-- Events and audit entries are numbered and linked after they commit, by beckon_sequence (one
-- run per organization at a time, ordered by the organization's counter row), instead of in the
-- writing transaction: concurrent changes of one organization no longer wait for one another.
CREATE TABLE "event_counters" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_counters" ADD CONSTRAINT "event_counters_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_id_unique";--> statement-breakpoint
DROP INDEX "events_org_seq_idx";--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_pkey";--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "seq" DROP DEFAULT;--> statement-breakpoint
DROP SEQUENCE IF EXISTS "events_seq_seq";--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "seq" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "id" SET DEFAULT gen_random_uuid();--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "events_org_seq_key" ON "events" USING btree ("org_id","seq");--> statement-breakpoint
CREATE INDEX "events_unsequenced_idx" ON "events" USING btree ("org_id") WHERE "events"."seq" is null;--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "tx_snapshot";--> statement-breakpoint
-- Existing events keep their numbers: each organization's counter goes on from its last one.
INSERT INTO "event_counters" ("org_id", "seq") SELECT "org_id", max("seq") FROM "events" GROUP BY "org_id";--> statement-breakpoint
ALTER TABLE "audit_entries" ADD COLUMN "content_hash" text;--> statement-breakpoint
CREATE INDEX "audit_entries_unlinked_idx" ON "audit_entries" USING btree ("org_id") WHERE "audit_entries"."seq" is null and "audit_entries"."content_hash" is not null;--> statement-breakpoint
-- One run of the sequencer for one organization: numbers its committed events that have none
-- (after its counter, in transaction order) and tells the streams which numbers are new
-- (`<org>:<first>:<last>` on beckon_events), then links its committed audit entries that are
-- not yet in the chain (in id order) after the chain's head. The counter's and the head's row
-- locks make two runs of one organization take turns; each statement sees what committed before it.
CREATE FUNCTION beckon_sequence(p_org uuid, p_genesis text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_last bigint;
  v_count bigint;
  v_seq bigint;
  v_prev text;
  v_hash text;
  v_entry record;
  v_ids uuid[] := '{}';
  v_seqs bigint[] := '{}';
  v_prevs text[] := '{}';
  v_hashes text[] := '{}';
BEGIN
  IF EXISTS (SELECT 1 FROM events WHERE org_id = p_org AND seq IS NULL) THEN
    INSERT INTO event_counters AS c (org_id, seq) VALUES (p_org, 0)
      ON CONFLICT (org_id) DO UPDATE SET seq = c.seq RETURNING seq INTO v_last;
    WITH pending AS (
      SELECT id, v_last + row_number() OVER (ORDER BY tx_id, id) AS n
        FROM events WHERE org_id = p_org AND seq IS NULL)
    UPDATE events e SET seq = p.n FROM pending p WHERE e.org_id = p_org AND e.id = p.id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    IF v_count > 0 THEN
      UPDATE event_counters SET seq = v_last + v_count WHERE org_id = p_org;
      PERFORM pg_notify('beckon_events', p_org || ':' || (v_last + 1) || ':' || (v_last + v_count));
    END IF;
  END IF;
  IF EXISTS (SELECT 1 FROM audit_entries WHERE org_id = p_org AND seq IS NULL AND content_hash IS NOT NULL) THEN
    INSERT INTO audit_heads AS h (org_id, seq, prev_hash, hash) VALUES (p_org, 0, p_genesis, p_genesis)
      ON CONFLICT (org_id) DO UPDATE SET seq = h.seq RETURNING seq, prev_hash, hash INTO v_seq, v_prev, v_hash;
    FOR v_entry IN
      SELECT id, content_hash FROM audit_entries
       WHERE org_id = p_org AND seq IS NULL AND content_hash IS NOT NULL ORDER BY id
    LOOP
      v_prev := v_hash;
      v_hash := encode(sha256(convert_to(v_prev || v_entry.content_hash, 'UTF8')), 'hex');
      v_seq := v_seq + 1;
      v_ids := v_ids || v_entry.id;
      v_seqs := v_seqs || v_seq;
      v_prevs := v_prevs || v_prev;
      v_hashes := v_hashes || v_hash;
    END LOOP;
    -- The links computed one after the other above, written in one statement.
    UPDATE audit_entries a SET seq = l.seq, prev_hash = l.prev_hash, hash = l.hash
      FROM unnest(v_ids, v_seqs, v_prevs, v_hashes) AS l(id, seq, prev_hash, hash)
     WHERE a.org_id = p_org AND a.id = l.id;
    UPDATE audit_heads SET seq = v_seq, prev_hash = v_prev, hash = v_hash WHERE org_id = p_org;
  END IF;
END $$;
--> statement-breakpoint
-- Resource processes remember which organizations are connected to Telegram, Discord and Teams
-- (as Slack, migration 0018): an item change of one without leaves that app's jobs out of its
-- statement. Connecting and disconnecting tell them.
CREATE FUNCTION beckon_notify_chat_connections() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('beckon_identity', TG_ARGV[0] || ':' || COALESCE(NEW.org_id, OLD.org_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER telegram_connections_notify AFTER INSERT OR DELETE ON telegram_connections
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_chat_connections('telegram');--> statement-breakpoint
CREATE TRIGGER discord_connections_notify AFTER INSERT OR DELETE ON discord_connections
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_chat_connections('discord');--> statement-breakpoint
CREATE TRIGGER teams_connections_notify AFTER INSERT OR DELETE ON teams_connections
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_chat_connections('teams');
