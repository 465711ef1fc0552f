-- Keys of entities the batch upserts, and removals that stand (no later item of the batch
-- brings the key back). The last item for a key wins, across item kinds.
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

-- empty unless: stg_removal
CREATE OR REPLACE TEMP TABLE w_removal AS
SELECT r.entity, r.key
FROM (SELECT entity, key, max(seq) AS seq FROM stg_removal GROUP BY entity, key) r
LEFT JOIN w_seen_all s ON s.entity = r.entity AND s.key = r.key
WHERE s.seq IS NULL OR s.seq < r.seq;

CREATE OR REPLACE TEMP TABLE w_seen AS
SELECT s.* FROM w_seen_all s ANTI JOIN w_removal r ON r.entity = s.entity AND r.key = s.key;

INSERT INTO sync_items (entity, key, first_seen, removed)
SELECT entity, key, batch_at(), false FROM w_seen
ON CONFLICT (entity, key) DO UPDATE SET removed = false;

-- An entity upstream brought back: its removal record is closed, not deleted.
UPDATE removed_entities r SET restored_at = batch_at()
FROM w_seen s
WHERE r.entity = s.entity AND r.key = s.key AND r.restored_at IS NULL;
