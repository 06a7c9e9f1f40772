-- Ready to distribute by organization (db/src/distribution.ts): device tokens and invitation
-- codes are unique per organization; slugs stay unique across organizations through
-- organization_slugs, a table of the coordinator; roles, sessions, sign-in links and OAuth records
-- no longer reference organizations (their organization's deletion removes them in code,
-- retention/org-deletion.ts).
CREATE TABLE "organization_slugs" (
	"slug" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invitations" DROP CONSTRAINT "invitations_code_hash_unique";--> statement-breakpoint
ALTER TABLE "organizations" DROP CONSTRAINT "organizations_slug_unique";--> statement-breakpoint
ALTER TABLE "devices" DROP CONSTRAINT "devices_device_token_unique";--> statement-breakpoint
ALTER TABLE "magic_link_tokens" DROP CONSTRAINT "magic_link_tokens_org_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "oauth_records" DROP CONSTRAINT "oauth_records_org_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "sessions" DROP CONSTRAINT "sessions_org_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "roles" DROP CONSTRAINT "roles_org_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_org_code_hash_unique" UNIQUE("org_id","code_hash");--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_org_device_token_unique" UNIQUE("org_id","device_token");--> statement-breakpoint
INSERT INTO "organization_slugs" ("slug", "org_id") SELECT "slug", "id" FROM "organizations";--> statement-breakpoint
-- Invitation codes now name their organization (invitations.service.ts); those issued before are
-- found through legacy_credentials, the organization of each of their hashes.
INSERT INTO "legacy_credentials" ("token_hash", "org_id")
SELECT "code_hash", "org_id" FROM "invitations"
ON CONFLICT DO NOTHING;
