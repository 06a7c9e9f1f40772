CREATE TABLE "email_digest_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"item_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_link_uses" (
	"nonce" uuid PRIMARY KEY NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_settings" (
	"user_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"digest" text DEFAULT 'off' NOT NULL,
	"digest_below" text DEFAULT 'warning' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_settings_user_id_org_id_pk" PRIMARY KEY("user_id","org_id"),
	CONSTRAINT "email_settings_digest" CHECK ("email_settings"."digest" in ('off', 'hourly', 'daily'))
);
--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "answered_via" text;--> statement-breakpoint
ALTER TABLE "email_digest_entries" ADD CONSTRAINT "email_digest_entries_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_digest_entries" ADD CONSTRAINT "email_digest_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_digest_entries" ADD CONSTRAINT "email_digest_entries_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_settings" ADD CONSTRAINT "email_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_settings" ADD CONSTRAINT "email_settings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_digest_entries_person_idx" ON "email_digest_entries" USING btree ("org_id","user_id","id");--> statement-breakpoint
CREATE INDEX "email_settings_org_idx" ON "email_settings" USING btree ("org_id") WHERE "email_settings"."enabled";--> statement-breakpoint
-- Resource processes remember which organizations have someone with mail on (an item creation
-- of one without leaves the mail fan-out out of its statement); every change tells them.
CREATE FUNCTION beckon_notify_email_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('beckon_identity', 'email:' || COALESCE(NEW.org_id, OLD.org_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER email_settings_notify AFTER INSERT OR UPDATE OR DELETE ON email_settings
  FOR EACH ROW EXECUTE FUNCTION beckon_notify_email_settings();
