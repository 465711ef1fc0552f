-- A run (re)starts: status 'running' until finishRun; a restarted run id is reopened.
INSERT INTO sync_runs (run_id, started_at, finished_at, status, calls, cost_cents)
VALUES ($1, $2::TIMESTAMPTZ, NULL, 'running', 0, 0)
ON CONFLICT (run_id) DO UPDATE SET finished_at = NULL, status = 'running';
