CREATE TABLE "phone_numbers" (
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"phone" text NOT NULL,
	"channel" text NOT NULL,
	"verified_at" timestamp with time zone,
	"code_hash" text,
	"code_expires_at" timestamp with time zone,
	"code_attempts" integer DEFAULT 0 NOT NULL,
	"opted_out_at" timestamp with time zone,
	"next_ref" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "phone_numbers_org_id_user_id_pk" PRIMARY KEY("org_id","user_id"),
	CONSTRAINT "phone_numbers_phone_key" UNIQUE("org_id","phone")
);
--> statement-breakpoint
CREATE TABLE "twilio_connections" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"account_sid" text NOT NULL,
	"auth_token_ciphertext" text NOT NULL,
	"sms_from" text,
	"whatsapp_from" text,
	"connected_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "twilio_inbound" (
	"message_sid" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "twilio_messages" (
	"item_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"phone" text NOT NULL,
	"channel" text NOT NULL,
	"ref" integer NOT NULL,
	"sid" text,
	"closed_notice" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "twilio_messages_item_id_user_id_pk" PRIMARY KEY("item_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "twilio_accounts" integer;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_org_id_twilio_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."twilio_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_connections" ADD CONSTRAINT "twilio_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_connections" ADD CONSTRAINT "twilio_connections_connected_by_users_id_fk" FOREIGN KEY ("connected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_inbound" ADD CONSTRAINT "twilio_inbound_org_id_twilio_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."twilio_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_messages" ADD CONSTRAINT "twilio_messages_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_messages" ADD CONSTRAINT "twilio_messages_org_id_twilio_connections_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."twilio_connections"("org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "twilio_messages" ADD CONSTRAINT "twilio_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "twilio_inbound_created_idx" ON "twilio_inbound" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "twilio_messages_phone_idx" ON "twilio_messages" USING btree ("org_id","phone","created_at");--> statement-breakpoint
-- SMS and WhatsApp are a Team and Enterprise feature: Free connects no Twilio account (plan gate twilio_accounts).
UPDATE plans SET twilio_accounts = CASE code WHEN 'free' THEN 0 WHEN 'team' THEN 1 ELSE NULL END;
