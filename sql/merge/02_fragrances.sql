-- Fragrance profiles: upsert the row, replace notes and accords as a whole, record score history.
-- Staging holds only the last profile and the last summary per id (stage-rows.ts): no window.
-- merge: creates w_fragrance | reads stg_fragrance, w_removal
CREATE OR REPLACE TEMP TABLE w_fragrance AS
SELECT f.* FROM stg_fragrance f
ANTI JOIN w_removal r ON r.entity = 'fragrance' AND r.key = f.id;

-- merge: updates sync_items | reads w_fragrance
UPDATE sync_items s SET last_changed = batch_at()
FROM (
  SELECT w.id FROM w_fragrance w LEFT JOIN fragrances f ON f.id = w.id
  WHERE f.id IS NULL
     OR row(f.name, f.brand, f.brand_slug, f.perfumer, f.perfumer_slug, f.year, f.score)
        IS DISTINCT FROM row(w.name, w.brand, w.brand_slug, w.perfumer, w.perfumer_slug, w.year, w.score)
) c
WHERE s.entity = 'fragrance' AND s.key = c.id;

-- One history row per observed score: close the open row when the score moved, then open
-- a row for every fragrance that has none open (first observation, or just closed).
-- merge: updates fragrance_score_history | reads w_fragrance
UPDATE fragrance_score_history h SET valid_to = batch_at()
FROM w_fragrance w
WHERE h.fragrance_id = w.id AND h.valid_to IS NULL AND h.score IS DISTINCT FROM w.score;

-- merge: inserts fragrance_score_history | reads w_fragrance
INSERT INTO fragrance_score_history (fragrance_id, score, valid_from, valid_to, run_id)
SELECT w.id, w.score, batch_at(), NULL, batch_run() FROM w_fragrance w
ANTI JOIN (SELECT fragrance_id FROM fragrance_score_history WHERE valid_to IS NULL) h ON h.fragrance_id = w.id;

-- merge: inserts fragrances | reads w_fragrance
INSERT INTO fragrances
SELECT id, name, brand, brand_slug, perfumer, perfumer_slug, year, score, batch_run(), batch_at()
FROM w_fragrance
ON CONFLICT (id) DO UPDATE SET
  name = excluded.name, brand = excluded.brand, brand_slug = excluded.brand_slug,
  perfumer = excluded.perfumer, perfumer_slug = excluded.perfumer_slug, year = excluded.year,
  score = excluded.score, _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;

-- merge: deletes fragrance_notes | reads w_fragrance
DELETE FROM fragrance_notes WHERE fragrance_id IN (SELECT id FROM w_fragrance);
-- Entries carry only their profile's seq (staging.ts): the key comes from the profile; the
-- layer is staged as its index in the pyramid (0 top, 1 middle, 2 base).
-- merge: inserts fragrance_notes | reads stg_fragrance_note, w_fragrance
INSERT INTO fragrance_notes
SELECT w.id, CASE n.layer WHEN 0 THEN 'top' WHEN 1 THEN 'middle' ELSE 'base' END, n.position, n.note,
  batch_run(), batch_at()
FROM stg_fragrance_note n JOIN w_fragrance w ON n.seq = w.seq;

-- merge: deletes fragrance_accords | reads w_fragrance
DELETE FROM fragrance_accords WHERE fragrance_id IN (SELECT id FROM w_fragrance);
-- merge: inserts fragrance_accords | reads stg_fragrance_accord, w_fragrance
INSERT INTO fragrance_accords
SELECT w.id, a.position, a.accord, a.strength, batch_run(), batch_at()
FROM stg_fragrance_accord a JOIN w_fragrance w ON a.seq = w.seq;

-- Summaries (list pages, batch, trending) only carry name and brand: they create the row
-- with NULL profile columns, or update name and brand, and never touch the rest. A summary
-- older than a profile of the same batch has nothing newer to say.
-- merge: creates w_summary | reads stg_fragrance_summary | looks up w_removal, w_fragrance
CREATE OR REPLACE TEMP TABLE w_summary AS
SELECT s.* FROM stg_fragrance_summary s
ANTI JOIN w_removal r ON r.entity = 'fragrance' AND r.key = s.id
ANTI JOIN w_fragrance w ON w.id = s.id AND w.seq > s.seq;

-- merge: updates sync_items | reads w_summary
UPDATE sync_items s SET last_changed = batch_at()
FROM (
  SELECT w.id FROM w_summary w LEFT JOIN fragrances f ON f.id = w.id
  WHERE f.id IS NULL OR row(f.name, f.brand) IS DISTINCT FROM row(w.name, w.brand)
) c
WHERE s.entity = 'fragrance' AND s.key = c.id;

-- merge: inserts fragrances | reads w_summary
INSERT INTO fragrances (id, name, brand, _run_id, _loaded_at)
SELECT id, name, brand, batch_run(), batch_at() FROM w_summary
ON CONFLICT (id) DO UPDATE SET
  name = excluded.name, brand = excluded.brand, _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;
