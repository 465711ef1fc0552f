-- Fragrances on the latest stored snapshot of each chart (src/plan/priority.ts: a nightly
-- refreshes them before its other due items). Overflow entries (malformed rows kept aside)
-- are not counted: their ids are not known to be right.
SELECT DISTINCT e.fragrance_id AS id
FROM chart_entries e
JOIN (SELECT chart_slug, max(snapshot_date) AS d FROM chart_entries GROUP BY chart_slug) l
  ON l.chart_slug = e.chart_slug AND l.d = e.snapshot_date
WHERE e.fragrance_id IS NOT NULL;
