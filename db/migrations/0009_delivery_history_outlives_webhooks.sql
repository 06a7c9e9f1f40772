ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_webhook_id_webhooks_id_fk";
--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE set null ON UPDATE no action;