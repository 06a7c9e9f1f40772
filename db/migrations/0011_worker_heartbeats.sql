-- Every live job worker pool writes its heartbeat here every few seconds (server/src/jobs/liveness.ts),
-- beside the advisory lock it holds for as long as its process lives. A pool whose lock is free
-- and whose heartbeat is stale is dead, and the jobs it held are handed back. The heartbeat keeps
-- a live pool from being taken for dead while its lock connection reconnects. Logged (not
-- UNLOGGED) so that a standby promoted after a failover still has the recent heartbeats: without
-- them every pool, its connections cut by the failover, would look dead at once.
CREATE TABLE worker_heartbeats (
  pool_id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
