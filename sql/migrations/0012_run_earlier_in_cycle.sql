-- A full run that completed its cycle: what the cycle's earlier runs left open in quarantine
-- at its end (records, and apart failed jobs), the reason a run with nothing of its own open
-- is 'completed_with_quarantine'. Kept as the run's end counted it, as `records` is: a later
-- `quarantine --revalidate` does not change what the run ended with. NULL: rows of earlier
-- versions, and runs that did not complete a cycle.
ALTER TABLE sync_run_quarantined ADD COLUMN earlier_records INTEGER;
ALTER TABLE sync_run_quarantined ADD COLUMN earlier_failed_jobs INTEGER;
