-- Every ledger row with its time on the service's clock (service_at), as a CTE body for the
-- per-day figures (spend-on-day.sql, quota-on-service-day.sql). A call's time on the service's
-- clock is its time here plus the offset of the latest run started at or before it
-- (sync_run_clocks, src/plan/service-clock.ts; 0 before any: this machine's day).
WITH clocks AS (
  SELECT r.started_at, c.clock_offset_ms FROM sync_run_clocks c JOIN sync_runs r USING (run_id)
)
SELECT a."at", a.cost_cents, a.quota_remaining, coalesce(c.clock_offset_ms, 0) AS offset_ms,
  a."at" + to_milliseconds(coalesce(c.clock_offset_ms, 0)) AS service_at
FROM api_calls a ASOF LEFT JOIN clocks c ON a."at" >= c.started_at
