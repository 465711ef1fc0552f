-- The last full cycle a run completed: for each of its runs answered at least once, the time
-- of its first answered call (ISO, this machine's clock), and when the run that completed it
-- finished (ISO, this machine's clock). src/sync/late-new.ts puts the first calls on the
-- service's clock by the stored offsets (src/warehouse/service-clock.ts, the rule of
-- sql/runs/service-calls.sql) without joining every call to them. `cycle_runs` is the cycle up
-- to the start of the last completed full run (sql/runs/cycle-runs.sql); both CTEs come from
-- src/warehouse/run-sql.ts. No rows: no full cycle completed, or none of its calls answered.
SELECT strftime(timezone('UTC', min(a."at")), '%Y-%m-%dT%H:%M:%S.%gZ') AS "firstAt",
  strftime(timezone('UTC', (
    SELECT finished_at FROM cycle_runs WHERE done ORDER BY started_at DESC LIMIT 1
  )), '%Y-%m-%dT%H:%M:%S.%gZ') AS "completedAt"
FROM api_calls a JOIN cycle_runs r USING (run_id)
WHERE a.status = 200
GROUP BY a.run_id
