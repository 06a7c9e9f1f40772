-- Two indexes that their tables' primary keys (org_id, id) already serve: one index fewer to
-- write for every delivery attempt and device.
DROP INDEX "delivery_attempts_org_idx";--> statement-breakpoint
DROP INDEX "devices_org_idx";