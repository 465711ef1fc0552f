-- calls and cost_cents come from the ledger: every attempt of the run, failed ones included.
UPDATE sync_runs SET
  status = $2,
  finished_at = $3::TIMESTAMPTZ,
  calls = (SELECT count(*) FROM api_calls WHERE run_id = $1),
  cost_cents = (SELECT coalesce(sum(cost_cents), 0) FROM api_calls WHERE run_id = $1)
WHERE run_id = $1;
