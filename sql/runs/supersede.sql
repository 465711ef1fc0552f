-- A record quarantined again with another answer (the same endpoint, key and scope: a changed
-- payload, a list's entries, a failed job's id failing on another error): its older open rows
-- are superseded, so that the latest answer's rows stand for it and every count counts the
-- record once. Closed, not released: the record is still not stored. The same answer again
-- kept its one row (sql/merge/07_ledger.sql). A row with no key names no record: left alone.
-- Run as each sync finishes, for every row whatever wrote it. $1: now.
UPDATE quarantine SET superseded_at = $1::TIMESTAMPTZ WHERE rowid IN (
  SELECT x.rowid FROM quarantine x
  WHERE x.released_at IS NULL AND x.superseded_at IS NULL AND coalesce(x.key, '') <> ''
    AND EXISTS (
      SELECT 1 FROM quarantine n
      WHERE n.released_at IS NULL AND n.superseded_at IS NULL AND n.endpoint = x.endpoint
        AND n.key = x.key AND n.scope IS NOT DISTINCT FROM x.scope AND n."at" > x."at"))
RETURNING key;
