-- UNLOGGED by hand (drizzle cannot say it): counters need no WAL, crash safety or replica.
CREATE UNLOGGED TABLE "rate_limit_counters" (
	"key" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"hits" integer NOT NULL,
	CONSTRAINT "rate_limit_counters_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE INDEX "oauth_records_client_idx" ON "oauth_records" USING btree ("client_id") WHERE "oauth_records"."client_id" is not null;