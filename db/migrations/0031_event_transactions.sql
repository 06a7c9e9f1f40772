-- Added without a default first, then given one: a volatile default in ADD COLUMN would rewrite
-- the whole table (older events keep null: nothing is known of their transactions).
ALTER TABLE "events" ADD COLUMN "tx_id" "xid8";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "tx_snapshot" "pg_snapshot";--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "tx_id" SET DEFAULT pg_current_xact_id();--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "tx_snapshot" SET DEFAULT pg_current_snapshot();
