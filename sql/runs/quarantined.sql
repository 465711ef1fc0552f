-- What the run left in quarantine, as its summary counts it at its end (sql/migrations/0008,
-- 0010): the records it received and could not store, and apart the jobs that failed (scope
-- 'job': nothing was received). Open rows only: what a later fetch of the run stored is not
-- missing.
INSERT INTO sync_run_quarantined (run_id, records, failed_jobs)
SELECT $1,
  count(*) FILTER (WHERE coalesce(scope, 'response') <> 'job')::INTEGER,
  count(*) FILTER (WHERE scope = 'job')::INTEGER
FROM quarantine WHERE run_id = $1 AND released_at IS NULL AND superseded_at IS NULL
ON CONFLICT (run_id) DO UPDATE SET records = excluded.records, failed_jobs = excluded.failed_jobs;
