-- One run's calls not answered 200, per HTTP status (0: no answer came back), so the
-- summary can say what its "failed calls" were: a 404 is usually an item gone upstream,
-- confirmed and recorded as removed, not a fault of the run.
SELECT
  status,
  count(*)::INTEGER AS calls
FROM api_calls
WHERE run_id = $1 AND status <> 200
GROUP BY status
ORDER BY calls DESC, status;
