-- The lowest X-RateLimit-Remaining the service answered on its day $1 (YYYY-MM-DD): the day
-- of the newest ledger row that carries one (sql/runs/quota-newest.sql). Concurrent calls
-- settle out of order, and within one window remaining only falls. The window is the service's
-- UTC day, never this machine's: after the service's day moved, a cut on this machine's day
-- took in the previous service day's low. `calls` is service-calls.sql over the rows that can
-- fall on $1 (src/warehouse/ledger-day.ts); none of them on it is newer than the newest.
SELECT CAST(min(quota_remaining) AS DOUBLE) AS remaining,
  strftime(timezone('UTC', max("at")), '%Y-%m-%dT%H:%M:%SZ') AS sent
FROM calls
WHERE quota_remaining IS NOT NULL AND service_at >= $1::DATE::TIMESTAMPTZ
HAVING count(*) > 0;
