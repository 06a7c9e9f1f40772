DROP INDEX "delivery_attempts_org_idx";--> statement-breakpoint
DROP INDEX "delivery_attempts_webhook_idx";--> statement-breakpoint
DROP INDEX "audit_entries_org_idx";--> statement-breakpoint
DROP INDEX "items_org_list_idx";--> statement-breakpoint
DROP INDEX "items_org_status_idx";--> statement-breakpoint
DROP INDEX "items_org_channel_idx";--> statement-breakpoint
CREATE INDEX "delivery_attempts_org_idx" ON "delivery_attempts" USING btree ("org_id","id");--> statement-breakpoint
CREATE INDEX "delivery_attempts_webhook_idx" ON "delivery_attempts" USING btree ("webhook_id","id") WHERE "delivery_attempts"."webhook_id" is not null;--> statement-breakpoint
CREATE INDEX "audit_entries_org_idx" ON "audit_entries" USING btree ("org_id","id");--> statement-breakpoint
CREATE INDEX "items_org_list_idx" ON "items" USING btree ("org_id","pinned","id");--> statement-breakpoint
CREATE INDEX "items_org_status_idx" ON "items" USING btree ("org_id","status","pinned","id");--> statement-breakpoint
CREATE INDEX "items_org_channel_idx" ON "items" USING btree ("org_id","channel_id","pinned","id");