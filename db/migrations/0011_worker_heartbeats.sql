-- Every live job worker pool writes its heartbeat here every few seconds (server/src/jobs/liveness.ts),
-- beside the advisory lock it holds for as long as its process lives. A pool whose lock is free
-- and whose heartbeat is stale is dead, and the jobs it held are handed back. The heartbeat keeps
-- a live pool from being taken for dead while its lock connection reconnects. Unlogged: a row
-- is rewritten every few seconds and is worth nothing after a crash of the database.
CREATE UNLOGGED TABLE worker_heartbeats (
  pool_id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
