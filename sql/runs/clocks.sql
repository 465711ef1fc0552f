-- The service's clock offset (ms) each run recorded (sync_run_clocks), by run start (ISO, UTC):
-- the sync judges stored ages by them (src/plan/service-clock.ts), status takes the latest.
SELECT c.run_id AS "runId",
  strftime(timezone('UTC', r.started_at), '%Y-%m-%dT%H:%M:%S.%gZ') AS "from",
  CAST(c.clock_offset_ms AS DOUBLE) AS "offsetMs"
FROM sync_run_clocks c JOIN sync_runs r USING (run_id)
ORDER BY r.started_at;
