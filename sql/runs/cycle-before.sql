-- The full runs of this run's cycle that came before it and were answered at least once (a
-- run refused at its first call read nothing): when there is one, this run finished a cycle
-- others began, and its cost alone says nothing against the cheapest full sync. The cycle
-- begins after the last full run that completed before this one (sql/sync-state.sql).
WITH full_runs AS (
  SELECT r.run_id, r.started_at, r.status
  FROM sync_runs r LEFT JOIN sync_run_modes m USING (run_id)
  WHERE coalesce(m.mode, 'full') = 'full'
), this_run AS (
  SELECT started_at FROM sync_runs WHERE run_id = $1
), earlier AS (
  SELECT * FROM full_runs WHERE run_id <> $1 AND started_at < (SELECT started_at FROM this_run)
), cycle_from AS (
  SELECT max(started_at) AS since FROM earlier WHERE status = 'completed'
)
SELECT count(*)::INTEGER AS n
FROM earlier b
WHERE ((SELECT since FROM cycle_from) IS NULL OR b.started_at > (SELECT since FROM cycle_from))
  AND EXISTS (SELECT 1 FROM api_calls c WHERE c.run_id = b.run_id AND c.status = 200);
