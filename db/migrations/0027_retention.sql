CREATE TABLE "blob_deletions" (
	"storage_key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "retention_policies" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"items_days" integer,
	"archived_items_days" integer,
	"comments_days" integer,
	"attachments_days" integer,
	"audit_days" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "retention_policies_positive" CHECK (coalesce("retention_policies"."items_days", 1) > 0 and coalesce("retention_policies"."archived_items_days", 1) > 0
          and coalesce("retention_policies"."comments_days", 1) > 0 and coalesce("retention_policies"."attachments_days", 1) > 0
          and coalesce("retention_policies"."audit_days", 1) > 0)
);
--> statement-breakpoint
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_item_id_items_id_fk";
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "deletion_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "retention_policies" ADD CONSTRAINT "retention_policies_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attachments_org_created_idx" ON "attachments" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "comments_org_created_idx" ON "comments" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "items_org_created_idx" ON "items" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE FUNCTION beckon_queue_blob_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO blob_deletions (storage_key) SELECT storage_key FROM gone ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attachments_queue_blob_deletions AFTER DELETE ON attachments
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION beckon_queue_blob_deletions();

