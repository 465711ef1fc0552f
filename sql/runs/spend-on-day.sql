-- One UTC day of the service's clock ($1, YYYY-MM-DD), all runs: the day the per-day cap
-- counts (the governor keys spend by the service's day, from its Date header). `calls` is
-- service-calls.sql (src/warehouse/ledger-day.ts puts them together).
SELECT count(*)::INTEGER AS calls, coalesce(sum(cost_cents), 0)::INTEGER AS cents
FROM calls
WHERE service_at >= $1::DATE::TIMESTAMPTZ AND service_at < ($1::DATE + 1)::TIMESTAMPTZ;
