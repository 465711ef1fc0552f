-- One run's calls per endpoint template. Whether the service bills a call it did not answer
-- with 200 is not in the spec: cents counts the answered calls (billed for certain), and
-- failed_cents the list price of the others (billed only if the service bills failures).
SELECT
  endpoint,
  count(*)::INTEGER AS calls,
  coalesce(sum(cost_cents) FILTER (WHERE status = 200), 0)::INTEGER AS cents,
  count(*) FILTER (WHERE status <> 200)::INTEGER AS failed_calls,
  coalesce(sum(cost_cents) FILTER (WHERE status <> 200), 0)::INTEGER AS failed_cents
FROM api_calls
WHERE run_id = $1
GROUP BY endpoint
ORDER BY cents + failed_cents DESC, endpoint;
