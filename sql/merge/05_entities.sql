-- Brands, perfumers, notes, accords, charts (+ chart snapshots) and review digests.
-- The last item per key wins; a note from a list page (no description) keeps the stored one.
-- Staging holds only the last brand, perfumer, accord and review digest per key
-- (stage-rows.ts): no window picks them here.
-- merge: creates w_brand | reads stg_brand, w_removal
CREATE OR REPLACE TEMP TABLE w_brand AS
SELECT b.* FROM stg_brand b ANTI JOIN w_removal r ON r.entity = 'brand' AND r.key = b.slug;
-- merge: updates sync_items | reads w_brand
UPDATE sync_items s SET last_changed = batch_at()
FROM (
  SELECT w.slug FROM w_brand w LEFT JOIN brands b ON b.slug = w.slug
  WHERE b.slug IS NULL OR row(b.name, b.country, b.description) IS DISTINCT FROM row(w.name, w.country, w.description)
) c
WHERE s.entity = 'brand' AND s.key = c.slug;
-- merge: inserts brands | reads w_brand
INSERT INTO brands SELECT slug, name, country, description, batch_run(), batch_at() FROM w_brand
ON CONFLICT (slug) DO UPDATE SET
  name = excluded.name, country = excluded.country, description = excluded.description,
  _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;

-- merge: creates w_perfumer | reads stg_perfumer, w_removal
CREATE OR REPLACE TEMP TABLE w_perfumer AS
SELECT p.* FROM stg_perfumer p ANTI JOIN w_removal r ON r.entity = 'perfumer' AND r.key = p.slug;
-- merge: updates sync_items | reads w_perfumer
UPDATE sync_items s SET last_changed = batch_at()
FROM (
  SELECT w.slug FROM w_perfumer w LEFT JOIN perfumers p ON p.slug = w.slug
  WHERE p.slug IS NULL OR row(p.name, p.nationality, p.bio) IS DISTINCT FROM row(w.name, w.nationality, w.bio)
) c
WHERE s.entity = 'perfumer' AND s.key = c.slug;
-- merge: inserts perfumers | reads w_perfumer
INSERT INTO perfumers SELECT slug, name, nationality, bio, batch_run(), batch_at() FROM w_perfumer
ON CONFLICT (slug) DO UPDATE SET
  name = excluded.name, nationality = excluded.nationality, bio = excluded.bio,
  _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;

-- merge: creates w_note | reads stg_note, w_removal
CREATE OR REPLACE TEMP TABLE w_note AS
SELECT n.slug, arg_max(n.name, n.seq) AS name, arg_max(n.family, n.seq) AS family,
  arg_max(n.description, n.seq) FILTER (WHERE n.has_description) AS description
FROM stg_note n ANTI JOIN w_removal r ON r.entity = 'note' AND r.key = n.slug
GROUP BY n.slug;
-- merge: updates sync_items | reads w_note
UPDATE sync_items s SET last_changed = batch_at()
FROM (
  SELECT w.slug FROM w_note w LEFT JOIN notes n ON n.slug = w.slug
  WHERE n.slug IS NULL
     OR row(n.name, n.family, coalesce(w.description, n.description)) IS DISTINCT FROM row(w.name, w.family, n.description)
) c
WHERE s.entity = 'note' AND s.key = c.slug;
-- merge: inserts notes | reads w_note
INSERT INTO notes SELECT slug, name, family, description, batch_run(), batch_at() FROM w_note
ON CONFLICT (slug) DO UPDATE SET
  name = excluded.name, family = excluded.family, description = coalesce(excluded.description, notes.description),
  _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;

-- merge: creates w_accord | reads stg_accord, w_removal
CREATE OR REPLACE TEMP TABLE w_accord AS
SELECT a.* FROM stg_accord a ANTI JOIN w_removal r ON r.entity = 'accord' AND r.key = a.slug;
-- merge: updates sync_items | reads w_accord
UPDATE sync_items s SET last_changed = batch_at()
FROM (
  SELECT w.slug FROM w_accord w LEFT JOIN accords a ON a.slug = w.slug
  WHERE a.slug IS NULL OR a.name IS DISTINCT FROM w.name
) c
WHERE s.entity = 'accord' AND s.key = c.slug;
-- merge: inserts accords | reads w_accord
INSERT INTO accords SELECT slug, name, batch_run(), batch_at() FROM w_accord
ON CONFLICT (slug) DO UPDATE SET name = excluded.name, _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;

-- merge: creates w_chart | reads stg_chart, w_removal
CREATE OR REPLACE TEMP TABLE w_chart AS
SELECT c.* FROM stg_chart c ANTI JOIN w_removal r ON r.entity = 'chart' AND r.key = c.slug
QUALIFY row_number() OVER (PARTITION BY c.slug ORDER BY c.seq DESC) = 1;
-- merge: updates sync_items | reads w_chart
UPDATE sync_items s SET last_changed = batch_at()
FROM (
  SELECT w.slug FROM w_chart w LEFT JOIN charts c ON c.slug = w.slug
  WHERE c.slug IS NULL OR c.title IS DISTINCT FROM w.title
) c
WHERE s.entity = 'chart' AND s.key = c.slug;
-- merge: inserts charts | reads w_chart
INSERT INTO charts SELECT slug, title, batch_run(), batch_at() FROM w_chart
ON CONFLICT (slug) DO UPDATE SET title = excluded.title, _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;

-- A chart read on a day replaces that day's snapshot; other days stay as history.
-- merge: creates w_chart_snapshot | reads stg_chart_head
CREATE OR REPLACE TEMP TABLE w_chart_snapshot AS
SELECT * FROM stg_chart_head
QUALIFY row_number() OVER (PARTITION BY chart_slug, snapshot_date ORDER BY seq DESC) = 1;
-- Ranks are unique per snapshot in staging: a tied rank's first entry (API order) is the
-- contract row, the others go to chart_entries_overflow (stage-rows.ts).
-- merge: deletes chart_entries | reads w_chart_snapshot
DELETE FROM chart_entries c USING w_chart_snapshot w
WHERE c.chart_slug = w.chart_slug AND c.snapshot_date = w.snapshot_date::DATE;
-- merge: inserts chart_entries | reads stg_chart_entry, w_chart_snapshot
INSERT INTO chart_entries
SELECT e.chart_slug, e.snapshot_date::DATE, e.rank, e.fragrance_id, e.name, e.brand, e.score, batch_run(), batch_at()
FROM stg_chart_entry e SEMI JOIN w_chart_snapshot w ON e.seq = w.seq;
-- merge: deletes chart_entries_overflow | reads w_chart_snapshot
DELETE FROM chart_entries_overflow c USING w_chart_snapshot w
WHERE c.chart_slug = w.chart_slug AND c.snapshot_date = w.snapshot_date::DATE;
-- merge: inserts chart_entries_overflow | reads stg_chart_entry_overflow, w_chart_snapshot
INSERT INTO chart_entries_overflow
SELECT e.chart_slug, e.snapshot_date::DATE, e.position, e.rank, e.fragrance_id, e.name, e.brand, e.score,
  batch_run(), batch_at()
FROM stg_chart_entry_overflow e SEMI JOIN w_chart_snapshot w ON e.seq = w.seq;

-- merge: inserts review_digests | reads stg_review_digest
INSERT INTO review_digests
SELECT fragrance_id, raw::JSON, batch_at(), batch_run() FROM stg_review_digest
ON CONFLICT (fragrance_id) DO UPDATE SET
  raw = excluded.raw, fetched_at = excluded.fetched_at, run_id = excluded.run_id;
