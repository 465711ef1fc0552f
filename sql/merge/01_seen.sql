-- Keys of entities the batch upserts, and removals that stand (no later item of the batch
-- brings the key back). The last item for a key wins, across item kinds.
-- merge: creates w_seen_all | reads stg_fragrance, stg_fragrance_summary, stg_brand, stg_perfumer, stg_note, stg_accord, stg_chart
CREATE OR REPLACE TEMP TABLE w_seen_all AS
SELECT entity, key, max(seq) AS seq
FROM (
  SELECT 'fragrance' AS entity, id AS key, seq FROM stg_fragrance
  UNION ALL SELECT 'fragrance', id, seq FROM stg_fragrance_summary
  UNION ALL SELECT 'brand', slug, seq FROM stg_brand
  UNION ALL SELECT 'perfumer', slug, seq FROM stg_perfumer
  UNION ALL SELECT 'note', slug, seq FROM stg_note
  UNION ALL SELECT 'accord', slug, seq FROM stg_accord
  UNION ALL SELECT 'chart', slug, seq FROM stg_chart
)
GROUP BY entity, key;

-- merge: creates w_removal | reads stg_removal | looks up w_seen_all
CREATE OR REPLACE TEMP TABLE w_removal AS
SELECT r.entity, r.key
FROM (SELECT entity, key, max(seq) AS seq FROM stg_removal GROUP BY entity, key) r
LEFT JOIN w_seen_all s ON s.entity = r.entity AND s.key = r.key
WHERE s.seq IS NULL OR s.seq < r.seq;

-- merge: creates w_seen | reads w_seen_all, w_removal
CREATE OR REPLACE TEMP TABLE w_seen AS
SELECT s.* FROM w_seen_all s ANTI JOIN w_removal r ON r.entity = s.entity AND r.key = s.key;

-- merge: inserts sync_items | reads w_seen
INSERT INTO sync_items (entity, key, first_seen, removed)
SELECT entity, key, batch_at(), false FROM w_seen
ON CONFLICT (entity, key) DO UPDATE SET removed = false;

-- An entity upstream brought back: its removal record is closed, not deleted.
-- merge: updates removed_entities | reads w_seen
UPDATE removed_entities r SET restored_at = batch_at()
FROM w_seen s
WHERE r.entity = s.entity AND r.key = s.key AND r.restored_at IS NULL;
