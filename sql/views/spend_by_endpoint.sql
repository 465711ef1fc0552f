-- Spend per endpoint template from the call ledger; failed calls (status 0 or >= 400) apart,
-- because whether the provider bills them is not known. Most cents first (where the money
-- goes), ties by endpoint and method, so `SELECT * FROM spend_by_endpoint` reads the same
-- every time. (Views are derived: replaced at every read-write open, no migration.)
CREATE OR REPLACE VIEW spend_by_endpoint AS
SELECT
  method,
  endpoint,
  count(*) AS calls,
  sum(cost_cents) AS cents,
  count(*) FILTER (WHERE status = 0 OR status >= 400) AS failed_calls,
  coalesce(sum(cost_cents) FILTER (WHERE status = 0 OR status >= 400), 0) AS failed_cents,
  min("at") AS first_at,
  max("at") AS last_at
FROM api_calls
GROUP BY method, endpoint
ORDER BY cents DESC, endpoint, method;
