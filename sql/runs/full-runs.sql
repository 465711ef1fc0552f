-- The full runs, as the CTE `full_runs` (src/warehouse/run-sql.ts). Nightly runs are not part
-- of a cycle (their due work comes from the freshness policy); runs of older versions (no
-- sync_run_modes row) were all full. `done`: the run read everything it owed, whether or not
-- records of it are in quarantine (src/domain/run.ts READ_ALL): a run that completes a cycle.
SELECT r.run_id, r.started_at, r.finished_at, r.status,
  r.status IN ('completed', 'completed_with_quarantine') AS done
FROM sync_runs r LEFT JOIN sync_run_modes m USING (run_id)
WHERE coalesce(m.mode, 'full') = 'full'
