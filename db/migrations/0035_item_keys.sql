-- Items keyed by organization first (db/src/distribution.ts): what belongs to an item points at it
-- by (org_id, item_id), and the chat messages of an item are keyed by (org_id, item_id, ...).
-- A plain index on items.id keeps the lookups by id alone (jobs, links, chat answers) indexed.
ALTER TABLE "gate_grants" DROP CONSTRAINT "gate_grants_item_id_unique";--> statement-breakpoint
ALTER TABLE "discord_messages" DROP CONSTRAINT "discord_messages_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "email_digest_entries" DROP CONSTRAINT "email_digest_entries_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "gate_grants" DROP CONSTRAINT "gate_grants_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "attachments" DROP CONSTRAINT "attachments_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "comments" DROP CONSTRAINT "comments_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "mcp_tasks" DROP CONSTRAINT "mcp_tasks_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "push_queue" DROP CONSTRAINT "push_queue_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "slack_messages" DROP CONSTRAINT "slack_messages_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "teams_messages" DROP CONSTRAINT "teams_messages_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "telegram_messages" DROP CONSTRAINT "telegram_messages_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "twilio_messages" DROP CONSTRAINT "twilio_messages_item_id_items_id_fk";--> statement-breakpoint
ALTER TABLE "discord_messages" DROP CONSTRAINT "discord_messages_item_id_discord_channel_id_pk";--> statement-breakpoint
ALTER TABLE "slack_messages" DROP CONSTRAINT "slack_messages_item_id_slack_channel_id_pk";--> statement-breakpoint
ALTER TABLE "teams_messages" DROP CONSTRAINT "teams_messages_item_id_conversation_id_pk";--> statement-breakpoint
ALTER TABLE "telegram_messages" DROP CONSTRAINT "telegram_messages_item_id_chat_id_pk";--> statement-breakpoint
ALTER TABLE "twilio_messages" DROP CONSTRAINT "twilio_messages_item_id_user_id_pk";--> statement-breakpoint
CREATE INDEX "items_id_idx" ON "items" USING btree ("id");--> statement-breakpoint
ALTER TABLE "items" DROP CONSTRAINT "items_pkey";--> statement-breakpoint
ALTER TABLE "discord_messages" ADD CONSTRAINT "discord_messages_pkey" PRIMARY KEY("org_id","item_id","discord_channel_id");--> statement-breakpoint
ALTER TABLE "items" ADD CONSTRAINT "items_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "slack_messages" ADD CONSTRAINT "slack_messages_pkey" PRIMARY KEY("org_id","item_id","slack_channel_id");--> statement-breakpoint
ALTER TABLE "teams_messages" ADD CONSTRAINT "teams_messages_pkey" PRIMARY KEY("org_id","item_id","conversation_id");--> statement-breakpoint
ALTER TABLE "telegram_messages" ADD CONSTRAINT "telegram_messages_pkey" PRIMARY KEY("org_id","item_id","chat_id");--> statement-breakpoint
ALTER TABLE "twilio_messages" ADD CONSTRAINT "twilio_messages_pkey" PRIMARY KEY("org_id","item_id","user_id");--> statement-breakpoint
ALTER TABLE "discord_messages" ADD CONSTRAINT "discord_messages_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_digest_entries" ADD CONSTRAINT "email_digest_entries_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_tasks" ADD CONSTRAINT "mcp_tasks_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_queue" ADD CONSTRAINT "push_queue_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_messages" ADD CONSTRAINT "slack_messages_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_messages" ADD CONSTRAINT "teams_messages_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_messages" ADD CONSTRAINT "telegram_messages_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_messages" ADD CONSTRAINT "twilio_messages_item_fk" FOREIGN KEY ("org_id","item_id") REFERENCES "public"."items"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_item_key" UNIQUE("org_id","item_id");