-- The full runs of this run's cycle that came before it and were answered at least once (a
-- run refused at its first call read nothing): when there is one, this run finished a cycle
-- others began, and its cost alone says nothing against the cheapest full sync. The cycle
-- begins after the last full run that completed before this one (sql/sync-state.sql).
-- first, last: the service's days (YYYY-MM-DD) the cycle's answered calls were made on, this
-- run's included, each at the clock offset its run recorded (sync_run_clocks; a run killed
-- before recording one is left out): a backfill read over several days mixes them.
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
), in_cycle AS (
  SELECT run_id FROM full_runs
  WHERE started_at <= (SELECT started_at FROM this_run)
    AND ((SELECT since FROM cycle_from) IS NULL OR started_at > (SELECT since FROM cycle_from))
), read_on AS (
  SELECT min(c."at" + to_milliseconds(k.clock_offset_ms)) AS first,
         max(c."at" + to_milliseconds(k.clock_offset_ms)) AS last
  FROM api_calls c JOIN in_cycle USING (run_id) JOIN sync_run_clocks k USING (run_id)
  WHERE c.status = 200
)
SELECT (
    SELECT count(*) FROM earlier b
    WHERE ((SELECT since FROM cycle_from) IS NULL OR b.started_at > (SELECT since FROM cycle_from))
      AND EXISTS (SELECT 1 FROM api_calls c WHERE c.run_id = b.run_id AND c.status = 200)
  )::INTEGER AS n,
  strftime(timezone('UTC', first), '%Y-%m-%d') AS first,
  strftime(timezone('UTC', last), '%Y-%m-%d') AS last
FROM read_on;
