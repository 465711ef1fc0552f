-- Cycle rule (src/warehouse/state-types.ts): a cycle starts with the first run after the
-- last completed run and ends with the run that completes. cycle_start is NULL when no run
-- started after the last completed one (a new cycle begins with the next run).
WITH last_done AS (
  SELECT run_id, started_at FROM sync_runs WHERE status = 'completed'
  ORDER BY started_at DESC, finished_at DESC LIMIT 1
)
SELECT
  (SELECT run_id FROM last_done) AS last_completed_run,
  strftime(timezone('UTC', (
    SELECT min(r.started_at) FROM sync_runs r
    WHERE r.run_id IS DISTINCT FROM (SELECT run_id FROM last_done)
      AND (NOT EXISTS (SELECT 1 FROM last_done) OR r.started_at > (SELECT started_at FROM last_done))
  )), '%Y-%m-%dT%H:%M:%S.%gZ') AS cycle_start;
