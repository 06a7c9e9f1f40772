CREATE TABLE "teams_connections" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"tenant_id" text,
	"secret_ciphertext" text NOT NULL,
	"installed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "teams_conversations" (
	"org_id" uuid NOT NULL,
	"conversation_id" text NOT NULL,
	"service_url" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"personal_user_id" text,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_conversations_org_id_conversation_id_pk" PRIMARY KEY("org_id","conversation_id")
);
--> statement-breakpoint
CREATE TABLE "teams_messages" (
	"item_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"conversation_id" text NOT NULL,
	"activity_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_messages_item_id_conversation_id_pk" PRIMARY KEY("item_id","conversation_id")
);
--> statement-breakpoint
CREATE TABLE "teams_routes" (
	"org_id" uuid NOT NULL,
	"channel_id" uuid NOT NULL,
	"conversation_id" text NOT NULL,
	"conversation_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_routes_org_id_channel_id_pk" PRIMARY KEY("org_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "teams_user_links" (
	"org_id" uuid NOT NULL,
	"teams_user_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_user_links_org_id_teams_user_id_pk" PRIMARY KEY("org_id","teams_user_id"),
	CONSTRAINT "teams_user_links_user_key" UNIQUE("org_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "teams_bots" integer;--> statement-breakpoint
ALTER TABLE "teams_connections" ADD CONSTRAINT "teams_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_connections" ADD CONSTRAINT "teams_connections_installed_by_users_id_fk" FOREIGN KEY ("installed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_conversations" ADD CONSTRAINT "teams_conversations_org_id_teams_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."teams_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_messages" ADD CONSTRAINT "teams_messages_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_messages" ADD CONSTRAINT "teams_messages_org_id_teams_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."teams_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_routes" ADD CONSTRAINT "teams_routes_org_id_teams_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."teams_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_routes" ADD CONSTRAINT "teams_routes_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_user_links" ADD CONSTRAINT "teams_user_links_org_id_teams_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."teams_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams_user_links" ADD CONSTRAINT "teams_user_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Microsoft Teams is a Team and Enterprise feature like Slack, Telegram and Discord: Free connects none.
UPDATE plans SET teams_bots = CASE code WHEN 'free' THEN 0 WHEN 'team' THEN 1 ELSE NULL END;
