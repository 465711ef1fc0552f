-- Every ledger row with its time on the service's clock (service_at), as the CTE `calls`
-- (src/warehouse/run-sql.ts): the one rule every figure by service day uses (the per-day
-- spend and quota, the cycle's service days). A call's time on the service's clock is its
-- time here plus the offset of the latest run started at or before it (sync_run_clocks,
-- src/warehouse/service-clock.ts, as the sync judges stored ages; 0 before any: this
-- machine's day). A run killed before recording its own offset counts at the one before.
WITH clocks AS (
  SELECT r.started_at, c.clock_offset_ms FROM sync_run_clocks c JOIN sync_runs r USING (run_id)
)
SELECT a.run_id, a."at", a.status, a.cost_cents, a.quota_remaining,
  coalesce(c.clock_offset_ms, 0) AS offset_ms,
  a."at" + to_milliseconds(coalesce(c.clock_offset_ms, 0)) AS service_at
FROM api_calls a ASOF LEFT JOIN clocks c ON a."at" >= c.started_at
