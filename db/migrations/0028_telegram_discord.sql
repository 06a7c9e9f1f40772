CREATE TABLE "chat_inbound_seen" (
	"provider" text NOT NULL,
	"org_id" uuid NOT NULL,
	"external_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_inbound_seen_provider_org_id_external_id_pk" PRIMARY KEY("provider","org_id","external_id")
);
--> statement-breakpoint
CREATE TABLE "chat_link_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "discord_connections" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"application_name" text NOT NULL,
	"public_key" text NOT NULL,
	"token_ciphertext" text NOT NULL,
	"installed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "discord_messages" (
	"item_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"discord_channel_id" text NOT NULL,
	"message_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "discord_messages_item_id_discord_channel_id_pk" PRIMARY KEY("item_id","discord_channel_id")
);
--> statement-breakpoint
CREATE TABLE "discord_routes" (
	"org_id" uuid NOT NULL,
	"channel_id" uuid NOT NULL,
	"discord_channel_id" text NOT NULL,
	"discord_channel_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "discord_routes_org_id_channel_id_pk" PRIMARY KEY("org_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "discord_user_links" (
	"org_id" uuid NOT NULL,
	"discord_user_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "discord_user_links_org_id_discord_user_id_pk" PRIMARY KEY("org_id","discord_user_id"),
	CONSTRAINT "discord_user_links_user_key" UNIQUE("org_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "telegram_connections" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"bot_id" text NOT NULL,
	"bot_username" text NOT NULL,
	"token_ciphertext" text NOT NULL,
	"installed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "telegram_messages" (
	"item_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"chat_id" text NOT NULL,
	"message_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telegram_messages_item_id_chat_id_pk" PRIMARY KEY("item_id","chat_id")
);
--> statement-breakpoint
CREATE TABLE "telegram_routes" (
	"org_id" uuid NOT NULL,
	"channel_id" uuid NOT NULL,
	"chat_id" text NOT NULL,
	"chat_title" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telegram_routes_org_id_channel_id_pk" PRIMARY KEY("org_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "telegram_user_links" (
	"org_id" uuid NOT NULL,
	"telegram_user_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telegram_user_links_org_id_telegram_user_id_pk" PRIMARY KEY("org_id","telegram_user_id"),
	CONSTRAINT "telegram_user_links_user_key" UNIQUE("org_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "telegram_bots" integer;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "discord_applications" integer;--> statement-breakpoint
ALTER TABLE "chat_inbound_seen" ADD CONSTRAINT "chat_inbound_seen_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_link_codes" ADD CONSTRAINT "chat_link_codes_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_link_codes" ADD CONSTRAINT "chat_link_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_connections" ADD CONSTRAINT "discord_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_connections" ADD CONSTRAINT "discord_connections_installed_by_users_id_fk" FOREIGN KEY ("installed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_messages" ADD CONSTRAINT "discord_messages_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_messages" ADD CONSTRAINT "discord_messages_org_id_discord_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."discord_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_routes" ADD CONSTRAINT "discord_routes_org_id_discord_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."discord_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_routes" ADD CONSTRAINT "discord_routes_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_user_links" ADD CONSTRAINT "discord_user_links_org_id_discord_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."discord_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discord_user_links" ADD CONSTRAINT "discord_user_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_connections" ADD CONSTRAINT "telegram_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_connections" ADD CONSTRAINT "telegram_connections_installed_by_users_id_fk" FOREIGN KEY ("installed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_messages" ADD CONSTRAINT "telegram_messages_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_messages" ADD CONSTRAINT "telegram_messages_org_id_telegram_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."telegram_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_routes" ADD CONSTRAINT "telegram_routes_org_id_telegram_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."telegram_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_routes" ADD CONSTRAINT "telegram_routes_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_user_links" ADD CONSTRAINT "telegram_user_links_org_id_telegram_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."telegram_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_user_links" ADD CONSTRAINT "telegram_user_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_inbound_seen_created_idx" ON "chat_inbound_seen" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "chat_link_codes_expires_idx" ON "chat_link_codes" USING btree ("expires_at");--> statement-breakpoint
-- Telegram and Discord are Team and Enterprise features like Slack: Free connects none.
UPDATE plans SET telegram_bots = CASE code WHEN 'free' THEN 0 WHEN 'team' THEN 1 ELSE NULL END,
  discord_applications = CASE code WHEN 'free' THEN 0 WHEN 'team' THEN 1 ELSE NULL END;
