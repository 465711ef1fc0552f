-- The last completed full run, and when the cycle open now started: NULL when no full run
-- started after the last completed one (a new cycle begins with the next). `full_runs` and
-- `cycle_runs` up to 'infinity' (sql/runs/cycle-runs.sql) come from src/warehouse/run-sql.ts.
SELECT
  (SELECT run_id FROM full_runs WHERE done
   ORDER BY started_at DESC, finished_at DESC LIMIT 1) AS last_completed_run,
  strftime(timezone('UTC', (SELECT min(started_at) FROM cycle_runs)), '%Y-%m-%dT%H:%M:%S.%gZ') AS cycle_start
