-- One UTC day of the ledger, all runs (the session time zone is UTC).
SELECT count(*)::INTEGER AS calls, coalesce(sum(cost_cents), 0)::INTEGER AS cents
FROM api_calls
WHERE "at" >= $1::DATE::TIMESTAMPTZ AND "at" < ($1::DATE + 1)::TIMESTAMPTZ;
