-- Events and audit entries are written in time order and read by age only to prune them: a BRIN
-- index (a summary per range of pages) serves that, where a B-tree cost every insert, and the
-- sequencer's update of each row after it, one more index entry.
DROP INDEX "events_created_idx";--> statement-breakpoint
DROP INDEX "audit_entries_created_idx";--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING brin ("created_at");--> statement-breakpoint
CREATE INDEX "audit_entries_created_idx" ON "audit_entries" USING brin ("created_at");