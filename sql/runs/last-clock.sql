-- The service's clock offset (ms) the latest run recorded (sync_run_clocks), if any.
SELECT CAST(c.clock_offset_ms AS DOUBLE) AS ms
FROM sync_run_clocks c JOIN sync_runs r USING (run_id)
ORDER BY r.started_at DESC LIMIT 1;
