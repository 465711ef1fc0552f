-- The last full cycle a run completed: the service's day (YYYY-MM-DD) of its first answered
-- call (on the service's clock, `calls`: sql/runs/service-calls.sql) and when the run that
-- completed it finished (ISO, this machine's clock). `cycle_runs` is the cycle up to the start
-- of the last completed full run (sql/runs/cycle-runs.sql); both CTEs come from
-- src/warehouse/run-sql.ts. No row values: no full cycle completed.
SELECT strftime(timezone('UTC', min(c.service_at)), '%Y-%m-%d') AS "firstDay",
  strftime(timezone('UTC', (
    SELECT finished_at FROM cycle_runs WHERE status = 'completed' ORDER BY started_at DESC LIMIT 1
  )), '%Y-%m-%dT%H:%M:%S.%gZ') AS "completedAt"
FROM calls c JOIN cycle_runs r USING (run_id)
WHERE c.status = 200
