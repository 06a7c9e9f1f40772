-- API keys, inbound webhooks, invitations, chat link codes, receipt keys and handled Twilio
-- messages keyed by organization first (db/src/distribution.ts). Their tokens and codes stay
-- unique across organizations, found by hash before the organization is known.
ALTER TABLE "chat_link_codes" DROP CONSTRAINT "chat_link_codes_pkey";--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_pkey";--> statement-breakpoint
ALTER TABLE "inbound_webhooks" DROP CONSTRAINT "inbound_webhooks_pkey";--> statement-breakpoint
ALTER TABLE "invitations" DROP CONSTRAINT "invitations_pkey";--> statement-breakpoint
ALTER TABLE "receipt_keys" DROP CONSTRAINT "receipt_keys_pkey";--> statement-breakpoint
ALTER TABLE "twilio_inbound" DROP CONSTRAINT "twilio_inbound_pkey";--> statement-breakpoint
ALTER TABLE "chat_link_codes" ADD CONSTRAINT "chat_link_codes_pkey" PRIMARY KEY("org_id","code_hash");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "inbound_webhooks" ADD CONSTRAINT "inbound_webhooks_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_pkey" PRIMARY KEY("org_id","id");--> statement-breakpoint
ALTER TABLE "receipt_keys" ADD CONSTRAINT "receipt_keys_pkey" PRIMARY KEY("org_id","kid");--> statement-breakpoint
ALTER TABLE "twilio_inbound" ADD CONSTRAINT "twilio_inbound_pkey" PRIMARY KEY("org_id","message_sid");