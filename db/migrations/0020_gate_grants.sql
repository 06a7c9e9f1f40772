CREATE TABLE "gate_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"agent_id" uuid,
	"user_id" uuid NOT NULL,
	"rule" text NOT NULL,
	"item_id" uuid NOT NULL,
	"granted_by" uuid NOT NULL,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gate_grants_item_id_unique" UNIQUE("item_id")
);
--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gate_grants" ADD CONSTRAINT "gate_grants_granted_by_users_id_fk" FOREIGN KEY ("granted_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "gate_grants_lookup_idx" ON "gate_grants" USING btree ("org_id","agent_id","rule","expires_at");--> statement-breakpoint
CREATE INDEX "gate_grants_expires_idx" ON "gate_grants" USING btree ("expires_at");