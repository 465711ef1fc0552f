-- Ledger rows may reach the warehouse after their run finished: a worker's spool reports a
-- dead worker's calls, or rows Redis lost, during a later run. Those earlier runs' totals
-- follow the ledger. $1: the run finishing now (rows loaded since its start).
UPDATE sync_runs SET
  calls = (SELECT count(*) FROM api_calls a WHERE a.run_id = sync_runs.run_id),
  cost_cents = (SELECT coalesce(sum(a.cost_cents), 0) FROM api_calls a WHERE a.run_id = sync_runs.run_id)
WHERE run_id <> $1
  AND finished_at IS NOT NULL
  AND run_id IN (
    SELECT DISTINCT run_id FROM api_calls
    WHERE _loaded_at >= (SELECT started_at FROM sync_runs WHERE run_id = $1)
  );
