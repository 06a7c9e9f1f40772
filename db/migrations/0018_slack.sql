CREATE TABLE "slack_connections" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"team_name" text NOT NULL,
	"bot_user_id" text,
	"token_ciphertext" text NOT NULL,
	"installed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_messages" (
	"item_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"slack_channel_id" text NOT NULL,
	"ts" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_messages_item_id_slack_channel_id_pk" PRIMARY KEY("item_id","slack_channel_id")
);
--> statement-breakpoint
CREATE TABLE "slack_routes" (
	"org_id" uuid NOT NULL,
	"channel_id" uuid NOT NULL,
	"slack_channel_id" text NOT NULL,
	"slack_channel_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_routes_org_id_channel_id_pk" PRIMARY KEY("org_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "slack_user_links" (
	"org_id" uuid NOT NULL,
	"slack_user_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slack_user_links_org_id_slack_user_id_pk" PRIMARY KEY("org_id","slack_user_id"),
	CONSTRAINT "slack_user_links_user_key" UNIQUE("org_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "slack_workspaces" integer;--> statement-breakpoint
ALTER TABLE "slack_connections" ADD CONSTRAINT "slack_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_connections" ADD CONSTRAINT "slack_connections_installed_by_users_id_fk" FOREIGN KEY ("installed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_messages" ADD CONSTRAINT "slack_messages_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_messages" ADD CONSTRAINT "slack_messages_org_id_slack_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."slack_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_routes" ADD CONSTRAINT "slack_routes_org_id_slack_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."slack_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_routes" ADD CONSTRAINT "slack_routes_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_user_links" ADD CONSTRAINT "slack_user_links_org_id_slack_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."slack_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_user_links" ADD CONSTRAINT "slack_user_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "slack_connections_team_idx" ON "slack_connections" USING btree ("team_id");--> statement-breakpoint
-- Slack is a Team and Enterprise feature: Free connects no workspace (plan gate slack_workspaces).
UPDATE plans SET slack_workspaces = CASE code WHEN 'free' THEN 0 WHEN 'team' THEN 1 ELSE NULL END;
--> statement-breakpoint
-- Resource processes remember which organizations have a Slack workspace (an item change of one
-- without leaves the Slack jobs out of its statement); connecting and disconnecting tell them.
CREATE FUNCTION beckon_notify_slack_connections() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('beckon_identity', 'slack:' || COALESCE(NEW.org_id, OLD.org_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER slack_connections_notify AFTER INSERT OR DELETE ON slack_connections
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_slack_connections();
