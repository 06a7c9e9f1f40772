DROP INDEX "push_queue_due_idx";--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "item_access" text DEFAULT 'organization' NOT NULL;--> statement-breakpoint
CREATE INDEX "push_queue_device_idx" ON "push_queue" USING btree ("device_id");