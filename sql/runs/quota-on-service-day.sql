-- The lowest X-RateLimit-Remaining the service answered on its day of the newest ledger row
-- that carries one: concurrent calls settle out of order, and within one window remaining
-- only falls. The window is the service's UTC day, never this machine's: after the service's
-- day moved, a cut on this machine's day took in the previous service day's low. `calls` is
-- service-calls.sql (src/warehouse/ledger-day.ts). No row when no call carried a quota.
SELECT CAST(min(q.quota_remaining) AS DOUBLE) AS remaining,
  strftime(timezone('UTC', max(q."at")), '%Y-%m-%dT%H:%M:%SZ') AS sent,
  strftime(CAST(any_value(last.s) AS DATE), '%Y-%m-%d') AS day,
  CAST(any_value(last.offset_ms) AS DOUBLE) AS offset_ms
FROM (SELECT * FROM calls WHERE quota_remaining IS NOT NULL) q,
  (SELECT service_at AS s, offset_ms FROM calls WHERE quota_remaining IS NOT NULL
   ORDER BY service_at DESC LIMIT 1) last
WHERE q.service_at >= CAST(CAST(last.s AS DATE) AS TIMESTAMPTZ)
HAVING count(*) > 0;
