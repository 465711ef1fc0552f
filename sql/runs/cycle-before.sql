-- The full runs of this run's cycle that came before it and were answered at least once (a
-- run refused at its first call read nothing): when there is one, this run finished a cycle
-- others began, and its cost alone says nothing against the cheapest full sync.
-- first, last: the service's days (YYYY-MM-DD) the cycle's answered calls were made on, this
-- run's included, each on the service's clock (`calls`, sql/runs/service-calls.sql): a
-- backfill read over several days mixes them. `cycle_runs` is the cycle up to this run's start
-- (sql/runs/cycle-runs.sql); both CTEs come from src/warehouse/run-sql.ts.
SELECT (
    SELECT count(*) FROM cycle_runs b
    WHERE b.run_id <> $1 AND b.started_at < (SELECT upto FROM cycle_end)
      AND EXISTS (SELECT 1 FROM api_calls c WHERE c.run_id = b.run_id AND c.status = 200)
  )::INTEGER AS n,
  strftime(timezone('UTC', min(c.service_at)), '%Y-%m-%d') AS first,
  strftime(timezone('UTC', max(c.service_at)), '%Y-%m-%d') AS last
FROM calls c JOIN cycle_runs r USING (run_id)
WHERE c.status = 200
