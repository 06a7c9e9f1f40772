-- API keys and inbound webhook tokens now name their organization (auth/tokens.ts), so they are
-- found by (org_id, token_hash). Those made before keep working through legacy_credentials, the
-- organization of each of their hashes.
CREATE TABLE "legacy_credentials" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL
);
--> statement-breakpoint
INSERT INTO "legacy_credentials" ("token_hash", "org_id")
SELECT "token_hash", "org_id" FROM "api_keys"
UNION ALL
SELECT "token_hash", "org_id" FROM "inbound_webhooks"
ON CONFLICT DO NOTHING;--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_token_hash_unique";--> statement-breakpoint
ALTER TABLE "inbound_webhooks" DROP CONSTRAINT "inbound_webhooks_token_hash_unique";--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_token_hash_unique" UNIQUE("org_id","token_hash");--> statement-breakpoint
ALTER TABLE "inbound_webhooks" ADD CONSTRAINT "inbound_webhooks_org_token_hash_unique" UNIQUE("org_id","token_hash");
