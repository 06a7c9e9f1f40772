ALTER TABLE "items" ADD COLUMN "on_timeout" jsonb;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "approvals" jsonb;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "responses" jsonb DEFAULT '[]'::jsonb NOT NULL;