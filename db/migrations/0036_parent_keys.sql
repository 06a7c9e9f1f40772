-- Agents, channels, escalation policies, webhooks, devices and schedules keyed by organization
-- first (db/src/distribution.ts), and every reference to them made (org_id, x_id). Where deleting
-- the parent empties the reference, only the id column is set null: org_id stays.
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_agent_id_agents_id_fk";--> statement-breakpoint
ALTER TABLE "discord_routes" DROP CONSTRAINT "discord_routes_channel_id_channels_id_fk";--> statement-breakpoint
ALTER TABLE "gate_grants" DROP CONSTRAINT "gate_grants_agent_id_agents_id_fk";--> statement-breakpoint
ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_webhook_id_webhooks_id_fk";--> statement-breakpoint
ALTER TABLE "channels" DROP CONSTRAINT "channels_escalation_policy_id_escalation_policies_id_fk";--> statement-breakpoint
ALTER TABLE "items" DROP CONSTRAINT "items_channel_id_channels_id_fk";--> statement-breakpoint
ALTER TABLE "items" DROP CONSTRAINT "items_escalation_policy_id_escalation_policies_id_fk";--> statement-breakpoint
ALTER TABLE "items" DROP CONSTRAINT "items_agent_id_agents_id_fk";--> statement-breakpoint
ALTER TABLE "mcp_tasks" DROP CONSTRAINT "mcp_tasks_agent_id_agents_id_fk";--> statement-breakpoint
ALTER TABLE "push_queue" DROP CONSTRAINT "push_queue_device_id_devices_id_fk";--> statement-breakpoint
ALTER TABLE "schedule_overrides" DROP CONSTRAINT "schedule_overrides_schedule_id_schedules_id_fk";--> statement-breakpoint
ALTER TABLE "slack_routes" DROP CONSTRAINT "slack_routes_channel_id_channels_id_fk";--> statement-breakpoint
ALTER TABLE "teams_routes" DROP CONSTRAINT "teams_routes_channel_id_channels_id_fk";--> statement-breakpoint
ALTER TABLE "telegram_routes" DROP CONSTRAINT "telegram_routes_channel_id_channels_id_fk";--> statement-breakpoint
ALTER TABLE "agents" DROP CONSTRAINT "agents_pkey";--> statement-breakpoint
CREATE INDEX "webhooks_id_idx" ON "webhooks" USING btree ("id");--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_pkey";--> statement-breakpoint
ALTER TABLE "channels" DROP CONSTRAINT "channels_pkey";--> statement-breakpoint
ALTER TABLE "escalation_policies" DROP CONSTRAINT "escalation_policies_pkey";--> statement-breakpoint
ALTER TABLE "devices" DROP CONSTRAINT "devices_pkey";--> statement-breakpoint
ALTER TABLE "schedules" DROP CONSTRAINT "schedules_pkey";--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "escalation_policies" ADD CONSTRAINT "escalation_policies_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_agent_fk" FOREIGN KEY ("org_id","agent_id") REFERENCES "public"."agents"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_routes" ADD CONSTRAINT "discord_routes_channel_fk" FOREIGN KEY ("org_id","channel_id") REFERENCES "public"."channels"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_agent_fk" FOREIGN KEY ("org_id","agent_id") REFERENCES "public"."agents"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_webhook_fk" FOREIGN KEY ("org_id","webhook_id") REFERENCES "public"."webhooks"("org_id","id") ON DELETE SET NULL ("webhook_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_escalation_policy_fk" FOREIGN KEY ("org_id","escalation_policy_id") REFERENCES "public"."escalation_policies"("org_id","id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "items" ADD CONSTRAINT "items_agent_fk" FOREIGN KEY ("org_id","agent_id") REFERENCES "public"."agents"("org_id","id") ON DELETE SET NULL ("agent_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "items" ADD CONSTRAINT "items_escalation_policy_fk" FOREIGN KEY ("org_id","escalation_policy_id") REFERENCES "public"."escalation_policies"("org_id","id") ON DELETE SET NULL ("escalation_policy_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "items" ADD CONSTRAINT "items_channel_fk" FOREIGN KEY ("org_id","channel_id") REFERENCES "public"."channels"("org_id","id") ON DELETE SET NULL ("channel_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_tasks" ADD CONSTRAINT "mcp_tasks_agent_fk" FOREIGN KEY ("org_id","agent_id") REFERENCES "public"."agents"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_queue" ADD CONSTRAINT "push_queue_device_fk" FOREIGN KEY ("org_id","device_id") REFERENCES "public"."devices"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_overrides" ADD CONSTRAINT "schedule_overrides_schedule_fk" FOREIGN KEY ("org_id","schedule_id") REFERENCES "public"."schedules"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_routes" ADD CONSTRAINT "slack_routes_channel_fk" FOREIGN KEY ("org_id","channel_id") REFERENCES "public"."channels"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_routes" ADD CONSTRAINT "teams_routes_channel_fk" FOREIGN KEY ("org_id","channel_id") REFERENCES "public"."channels"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_routes" ADD CONSTRAINT "telegram_routes_channel_fk" FOREIGN KEY ("org_id","channel_id") REFERENCES "public"."channels"("org_id","id") ON DELETE cascade ON UPDATE no action;