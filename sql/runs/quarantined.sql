-- The records the run quarantined, as its summary counts them at its end (sql/migrations/0008).
INSERT INTO sync_run_quarantined
SELECT $1, count(*)::INTEGER FROM quarantine WHERE run_id = $1
ON CONFLICT (run_id) DO UPDATE SET records = excluded.records;
