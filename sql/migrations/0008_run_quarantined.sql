-- The records each run quarantined, counted when it finished. A record fetched again and still
-- invalid moves its one open quarantine row to the later run (sql/merge/07_ledger.sql), so
-- counting quarantine rows by run_id afterwards lost the earlier run's: `fragsync runs` showed
-- exit 0 for a run that had exited 8. Runs of older versions have no row.
CREATE TABLE sync_run_quarantined (
  run_id VARCHAR PRIMARY KEY,
  records INTEGER NOT NULL
);
