-- The service's UTC day (YYYY-MM-DD) of the newest ledger row, on the service's clock, that
-- carries an X-RateLimit-Remaining, and that row's offset (ms): the quota window status and
-- plan show (sql/runs/quota-on-service-day.sql). `calls` is service-calls.sql over the rows
-- that can be the newest (src/warehouse/ledger-day.ts). No row when no call carried a quota.
SELECT strftime(CAST(service_at AS DATE), '%Y-%m-%d') AS day, CAST(offset_ms AS DOUBLE) AS offset_ms
FROM calls WHERE quota_remaining IS NOT NULL
ORDER BY service_at DESC LIMIT 1
