-- Cycle rule (src/warehouse/state-types.ts): a full cycle starts with the first full run after
-- the last completed full run and ends with the full run that completes. cycle_start is NULL
-- when no full run started after the last completed one (a new cycle begins with the next).
-- Nightly runs are not part of a cycle (their due work comes from the freshness policy); runs
-- of older versions (no sync_run_modes row) were all full.
WITH full_runs AS (
  SELECT r.* FROM sync_runs r LEFT JOIN sync_run_modes m USING (run_id) WHERE coalesce(m.mode, 'full') = 'full'
), last_done AS (
  SELECT run_id, started_at FROM full_runs WHERE status = 'completed'
  ORDER BY started_at DESC, finished_at DESC LIMIT 1
)
SELECT
  (SELECT run_id FROM last_done) AS last_completed_run,
  strftime(timezone('UTC', (
    SELECT min(r.started_at) FROM full_runs r
    WHERE r.run_id IS DISTINCT FROM (SELECT run_id FROM last_done)
      AND (NOT EXISTS (SELECT 1 FROM last_done) OR r.started_at > (SELECT started_at FROM last_done))
  )), '%Y-%m-%dT%H:%M:%S.%gZ') AS cycle_start;
