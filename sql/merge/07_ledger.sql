-- The call ledger and the quarantine. _call_key (content hash + occurrence in the batch)
-- makes a replayed batch add no calls; two identical attempts in one batch stay two rows.
-- A stored call with a staged call's key was sent at the same time (the hash covers "at"; a
-- call id's every report carries its one send time), so only the stored calls sent between
-- the batch's first and last call are read: constants, so the scan skips the rest of the
-- table by its zone maps ("at" rises with the load order). Reading every stored key cost
-- 8.6 ms per 2,500 calls at 90k stored and 15 ms at 300k; this, about 2.8 at both.
-- merge: inserts api_calls | reads stg_api_call
INSERT INTO api_calls
SELECT batch_run(), s."at"::TIMESTAMPTZ, s.method, s.endpoint, s.status, s.cost_cents, s.quota_remaining,
  s.call_key, batch_at()
FROM stg_api_call s ANTI JOIN (
  SELECT _call_key FROM api_calls WHERE "at" BETWEEN batch_calls_from() AND batch_calls_to()
) a ON a._call_key = s.call_key;

-- A record fetched again and still the same invalid answer (endpoint, key, scope, reason and
-- payload) is the pending row of an earlier run, now this run's: one row per open record,
-- and the run still counts it (its summary, exit 8).
-- merge: updates quarantine | reads stg_quarantine
UPDATE quarantine x SET run_id = batch_run(), "at" = batch_at()
FROM (SELECT DISTINCT endpoint, key, reason, raw, scope FROM stg_quarantine) q
WHERE x.released_at IS NULL AND x.superseded_at IS NULL AND x.run_id IS DISTINCT FROM batch_run()
  AND x.endpoint = q.endpoint AND x.key = q.key AND x.reason = q.reason
  AND x.scope IS NOT DISTINCT FROM q.scope AND x.raw::VARCHAR = q.raw::JSON::VARCHAR;

-- merge: inserts quarantine | reads stg_quarantine
INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
SELECT batch_run(), batch_at(), q.endpoint, q.key, q.reason, q.raw::JSON, q.scope
FROM (SELECT DISTINCT endpoint, key, reason, raw, scope FROM stg_quarantine) q
WHERE NOT EXISTS (
  SELECT 1 FROM quarantine x
  WHERE x.run_id = batch_run() AND x.superseded_at IS NULL AND x.endpoint = q.endpoint AND x.key = q.key
    AND x.reason = q.reason AND x.raw::VARCHAR = q.raw::JSON::VARCHAR
);

