-- Upstream no longer has these: delete them (and a fragrance's child rows) from the current
-- tables, and keep their last row in removed_entities. Only rows still present are recorded,
-- so replaying a batch adds no history. Chart snapshots stay: they are dated history already.
-- merge: inserts removed_entities | reads w_removal
INSERT INTO removed_entities
SELECT 'fragrance', t.id, batch_at(), batch_run(), to_json(t), NULL
FROM fragrances t SEMI JOIN w_removal r ON r.entity = 'fragrance' AND r.key = t.id;
-- merge: inserts removed_entities | reads w_removal
INSERT INTO removed_entities
SELECT 'brand', t.slug, batch_at(), batch_run(), to_json(t), NULL
FROM brands t SEMI JOIN w_removal r ON r.entity = 'brand' AND r.key = t.slug;
-- merge: inserts removed_entities | reads w_removal
INSERT INTO removed_entities
SELECT 'perfumer', t.slug, batch_at(), batch_run(), to_json(t), NULL
FROM perfumers t SEMI JOIN w_removal r ON r.entity = 'perfumer' AND r.key = t.slug;
-- merge: inserts removed_entities | reads w_removal
INSERT INTO removed_entities
SELECT 'note', t.slug, batch_at(), batch_run(), to_json(t), NULL
FROM notes t SEMI JOIN w_removal r ON r.entity = 'note' AND r.key = t.slug;
-- merge: inserts removed_entities | reads w_removal
INSERT INTO removed_entities
SELECT 'accord', t.slug, batch_at(), batch_run(), to_json(t), NULL
FROM accords t SEMI JOIN w_removal r ON r.entity = 'accord' AND r.key = t.slug;
-- merge: inserts removed_entities | reads w_removal
INSERT INTO removed_entities
SELECT 'chart', t.slug, batch_at(), batch_run(), to_json(t), NULL
FROM charts t SEMI JOIN w_removal r ON r.entity = 'chart' AND r.key = t.slug;

-- merge: creates w_removed_fragrance | reads w_removal
CREATE OR REPLACE TEMP TABLE w_removed_fragrance AS SELECT key AS id FROM w_removal WHERE entity = 'fragrance';
-- merge: updates fragrance_score_history | reads w_removed_fragrance
UPDATE fragrance_score_history SET valid_to = batch_at()
WHERE valid_to IS NULL AND fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes fragrance_notes | reads w_removed_fragrance
DELETE FROM fragrance_notes WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes fragrance_accords | reads w_removed_fragrance
DELETE FROM fragrance_accords WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes brand_fragrances | reads w_removed_fragrance
DELETE FROM brand_fragrances WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes reviews | reads w_removed_fragrance
DELETE FROM reviews WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes review_totals | reads w_removed_fragrance
DELETE FROM review_totals WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes review_digests | reads w_removed_fragrance
DELETE FROM review_digests WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes similar_fragrances | reads w_removed_fragrance
DELETE FROM similar_fragrances WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes wearing_stats | reads w_removed_fragrance
DELETE FROM wearing_stats WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes wearing_moods | reads w_removed_fragrance
DELETE FROM wearing_moods WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes wearing_occasions | reads w_removed_fragrance
DELETE FROM wearing_occasions WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes similar_fragrances_overflow | reads w_removed_fragrance
DELETE FROM similar_fragrances_overflow WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes wearing_labels_overflow | reads w_removed_fragrance
DELETE FROM wearing_labels_overflow WHERE fragrance_id IN (SELECT id FROM w_removed_fragrance);
-- Other fragrances' similar lists that named it: upstream dropped the entry. The row goes
-- now, so nothing names a fragrance that is gone; the list itself is owed again (a nightly's
-- signal, src/sync/similar-signals.ts) and read whole when the budget reaches it.
-- merge: deletes similar_fragrances | reads w_removed_fragrance
DELETE FROM similar_fragrances WHERE similar_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes similar_fragrances_overflow | reads w_removed_fragrance
DELETE FROM similar_fragrances_overflow WHERE similar_id IN (SELECT id FROM w_removed_fragrance);
-- merge: deletes fragrances | reads w_removed_fragrance
DELETE FROM fragrances WHERE id IN (SELECT id FROM w_removed_fragrance);

-- merge: deletes brand_fragrances | reads w_removal
DELETE FROM brand_fragrances WHERE brand_slug IN (SELECT key FROM w_removal WHERE entity = 'brand');
-- merge: deletes brands | reads w_removal
DELETE FROM brands WHERE slug IN (SELECT key FROM w_removal WHERE entity = 'brand');
-- merge: deletes perfumers | reads w_removal
DELETE FROM perfumers WHERE slug IN (SELECT key FROM w_removal WHERE entity = 'perfumer');
-- merge: deletes notes | reads w_removal
DELETE FROM notes WHERE slug IN (SELECT key FROM w_removal WHERE entity = 'note');
-- merge: deletes accords | reads w_removal
DELETE FROM accords WHERE slug IN (SELECT key FROM w_removal WHERE entity = 'accord');
-- merge: deletes charts | reads w_removal
DELETE FROM charts WHERE slug IN (SELECT key FROM w_removal WHERE entity = 'chart');

-- merge: inserts sync_items | reads w_removal
INSERT INTO sync_items (entity, key, first_seen, removed)
SELECT entity, key, batch_at(), true FROM w_removal
ON CONFLICT (entity, key) DO UPDATE SET removed = true;
