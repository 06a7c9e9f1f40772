ALTER TABLE "channels" ADD COLUMN "escalation" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "assignees" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "assignee_keys" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "claimed_by_type" text;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "claimed_by_id" uuid;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "claimed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "escalation" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "escalation_step" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "items_assignee_keys_idx" ON "items" USING gin ("assignee_keys");--> statement-breakpoint
CREATE INDEX "items_claimed_idx" ON "items" USING btree ("org_id","claimed_by_id") WHERE "items"."claimed_by_id" is not null;