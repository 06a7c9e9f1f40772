-- Teams and their members keyed by organization first (db/src/distribution.ts): a team member
-- carries its team's org_id, and points at the team by (org_id, id).
ALTER TABLE "team_members" DROP CONSTRAINT "team_members_team_id_teams_id_fk";--> statement-breakpoint
ALTER TABLE "team_members" DROP CONSTRAINT "team_members_team_id_user_id_pk";--> statement-breakpoint
DROP INDEX "team_members_user_idx";--> statement-breakpoint
ALTER TABLE "teams" DROP CONSTRAINT "teams_pkey";--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "team_members" ADD COLUMN "org_id" uuid;--> statement-breakpoint
UPDATE "team_members" tm SET "org_id" = t."org_id" FROM "teams" t WHERE t."id" = tm."team_id";--> statement-breakpoint
ALTER TABLE "team_members" ALTER COLUMN "org_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_pkey" PRIMARY KEY("org_id","team_id","user_id");--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_fk" FOREIGN KEY ("org_id","team_id") REFERENCES "public"."teams"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_members_user_idx" ON "team_members" USING btree ("org_id","user_id");
