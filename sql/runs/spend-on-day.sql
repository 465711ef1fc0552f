-- One UTC day of the service's clock ($1, YYYY-MM-DD), all runs: the day the per-day cap
-- counts (the governor keys spend by the service's day, from its Date header). A call's time
-- on the service's clock is its time here plus the offset of the latest run started at or
-- before it (sync_run_clocks, src/plan/service-clock.ts; 0 before any: this machine's day).
WITH clocks AS (
  SELECT r.started_at, c.clock_offset_ms FROM sync_run_clocks c JOIN sync_runs r USING (run_id)
), calls AS (
  SELECT a.cost_cents, a."at" + to_milliseconds(coalesce(c.clock_offset_ms, 0)) AS service_at
  FROM api_calls a ASOF LEFT JOIN clocks c ON a."at" >= c.started_at
)
SELECT count(*)::INTEGER AS calls, coalesce(sum(cost_cents), 0)::INTEGER AS cents
FROM calls
WHERE service_at >= $1::DATE::TIMESTAMPTZ AND service_at < ($1::DATE + 1)::TIMESTAMPTZ;
