CREATE TABLE "audit_heads" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"prev_hash" text NOT NULL,
	"anchor_seq" bigint DEFAULT 0 NOT NULL,
	"anchor_hash" text DEFAULT repeat('0', 64) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receipt_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "audit_entries" ADD COLUMN "seq" bigint;--> statement-breakpoint
ALTER TABLE "audit_entries" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "audit_entries" ADD COLUMN "hash" text;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "action" jsonb;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "action_digest" text;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "receipt" text;--> statement-breakpoint
ALTER TABLE "audit_heads" ADD CONSTRAINT "audit_heads_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipt_keys" ADD CONSTRAINT "receipt_keys_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "receipt_keys_active_key" ON "receipt_keys" USING btree ("org_id") WHERE "receipt_keys"."retired_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_entries_org_seq_key" ON "audit_entries" USING btree ("org_id","seq");