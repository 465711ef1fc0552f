-- Calls and cents per UTC day, the unit of the provider's quota. cents is at list price with
-- failed calls (status 0 or >= 400) included, the most the day may have cost; failed_cents is
-- their part, billed only if the service bills failed calls (the spec does not say).
CREATE OR REPLACE VIEW spend_by_day AS
SELECT
  CAST(timezone('UTC', "at") AS DATE) AS day_utc,
  count(*) AS calls,
  sum(cost_cents) AS cents,
  count(*) FILTER (WHERE status = 429) AS rate_limited_calls,
  count(*) FILTER (WHERE status = 0 OR status >= 400) AS failed_calls,
  coalesce(sum(cost_cents) FILTER (WHERE status = 0 OR status >= 400), 0) AS failed_cents
FROM api_calls
GROUP BY day_utc;
