-- The last full cycle a run completed: the service's day (YYYY-MM-DD) of its first answered
-- call (each call at the clock offset its run recorded, sync_run_clocks) and when the run that
-- completed it finished (ISO, this machine's clock). A cycle begins after the full run that
-- completed the one before (cycle-before.sql). No row values: no full cycle completed.
WITH full_runs AS (
  SELECT r.run_id, r.started_at, r.finished_at, r.status
  FROM sync_runs r LEFT JOIN sync_run_modes m USING (run_id)
  WHERE coalesce(m.mode, 'full') = 'full'
), done AS (
  SELECT started_at, finished_at FROM full_runs WHERE status = 'completed' ORDER BY started_at DESC LIMIT 1
), cycle_from AS (
  SELECT max(started_at) AS since FROM full_runs
  WHERE status = 'completed' AND started_at < (SELECT started_at FROM done)
), in_cycle AS (
  SELECT run_id FROM full_runs
  WHERE started_at <= (SELECT started_at FROM done)
    AND ((SELECT since FROM cycle_from) IS NULL OR started_at > (SELECT since FROM cycle_from))
)
SELECT strftime(timezone('UTC', min(c."at" + to_milliseconds(k.clock_offset_ms))), '%Y-%m-%d') AS "firstDay",
  strftime(timezone('UTC', (SELECT finished_at FROM done)), '%Y-%m-%dT%H:%M:%S.%gZ') AS "completedAt"
FROM api_calls c JOIN in_cycle USING (run_id) JOIN sync_run_clocks k USING (run_id)
WHERE c.status = 200;
