-- The jobs each run left failed (quarantine rows of scope 'job': nothing received, to fetch
-- again by the next sync), counted apart from its records (received, not stored) when it
-- finished. Rows of earlier versions: NULL, their `records` counting both.
ALTER TABLE sync_run_quarantined ADD COLUMN failed_jobs INTEGER;
