ALTER TABLE "notification_preferences" ADD COLUMN "muted_apps" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "slack_messages" ADD COLUMN "posted_to" text;