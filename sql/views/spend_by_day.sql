-- Calls and cents per UTC day, the unit of the provider's quota.
CREATE OR REPLACE VIEW spend_by_day AS
SELECT
  CAST(timezone('UTC', "at") AS DATE) AS day_utc,
  count(*) AS calls,
  sum(cost_cents) AS cents,
  count(*) FILTER (WHERE status = 429) AS rate_limited_calls
FROM api_calls
GROUP BY day_utc;
