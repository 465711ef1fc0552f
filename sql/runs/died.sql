-- A run found dead ($1) by the run opening now ($2, at $3), with the reason ($4); its last
-- call is the last sign of its process's life in this warehouse.
INSERT INTO sync_run_deaths (run_id, found_by, found_at, last_call_at, reason)
SELECT $1, $2, $3::TIMESTAMPTZ, (SELECT max("at") FROM api_calls WHERE run_id = $1), $4
ON CONFLICT (run_id) DO UPDATE SET found_by = excluded.found_by, found_at = excluded.found_at,
  last_call_at = excluded.last_call_at, reason = excluded.reason;
