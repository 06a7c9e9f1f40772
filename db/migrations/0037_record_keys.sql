-- An organization's records keyed by organization first (db/src/distribution.ts). A plain index on
-- push_queue.id keeps the push job's lookup by entry id alone indexed.
CREATE INDEX "push_queue_id_idx" ON "push_queue" USING btree ("id");--> statement-breakpoint
ALTER TABLE "subscriptions" DROP CONSTRAINT "subscriptions_pkey";--> statement-breakpoint
ALTER TABLE "email_digest_entries" DROP CONSTRAINT "email_digest_entries_pkey";--> statement-breakpoint
ALTER TABLE "gate_grants" DROP CONSTRAINT "gate_grants_pkey";--> statement-breakpoint
ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_pkey";--> statement-breakpoint
ALTER TABLE "attachments" DROP CONSTRAINT "attachments_pkey";--> statement-breakpoint
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_pkey";--> statement-breakpoint
ALTER TABLE "comments" DROP CONSTRAINT "comments_pkey";--> statement-breakpoint
ALTER TABLE "templates" DROP CONSTRAINT "templates_pkey";--> statement-breakpoint
ALTER TABLE "mcp_tasks" DROP CONSTRAINT "mcp_tasks_pkey";--> statement-breakpoint
ALTER TABLE "out_of_office" DROP CONSTRAINT "out_of_office_pkey";--> statement-breakpoint
ALTER TABLE "memberships" DROP CONSTRAINT "memberships_pkey";--> statement-breakpoint
ALTER TABLE "push_queue" DROP CONSTRAINT "push_queue_pkey";--> statement-breakpoint
ALTER TABLE "schedule_overrides" DROP CONSTRAINT "schedule_overrides_pkey";--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "email_digest_entries" ADD CONSTRAINT "email_digest_entries_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "templates" ADD CONSTRAINT "templates_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "mcp_tasks" ADD CONSTRAINT "mcp_tasks_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "out_of_office" ADD CONSTRAINT "out_of_office_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "push_queue" ADD CONSTRAINT "push_queue_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "schedule_overrides" ADD CONSTRAINT "schedule_overrides_pkey" PRIMARY KEY("org_id","id");
