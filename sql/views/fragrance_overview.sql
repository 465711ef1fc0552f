-- One row per fragrance with everything an analyst usually joins by hand.
CREATE OR REPLACE VIEW fragrance_overview AS
SELECT
  f.id, f.name, f.brand, f.brand_slug, f.perfumer, f.perfumer_slug, f.year, f.score,
  coalesce(n.top_notes, []) AS top_notes,
  coalesce(n.middle_notes, []) AS middle_notes,
  coalesce(n.base_notes, []) AS base_notes,
  coalesce(a.accords, []) AS accords,
  coalesce(r.review_count, 0) AS review_count,
  r.avg_rating,
  coalesce(s.similar_count, 0) AS similar_count
FROM fragrances f
LEFT JOIN (
  SELECT fragrance_id,
    list(note ORDER BY position) FILTER (WHERE layer = 'top') AS top_notes,
    list(note ORDER BY position) FILTER (WHERE layer = 'middle') AS middle_notes,
    list(note ORDER BY position) FILTER (WHERE layer = 'base') AS base_notes
  FROM fragrance_notes GROUP BY fragrance_id
) n ON n.fragrance_id = f.id
LEFT JOIN (
  SELECT fragrance_id, list(accord ORDER BY position) AS accords
  FROM fragrance_accords GROUP BY fragrance_id
) a ON a.fragrance_id = f.id
LEFT JOIN (
  SELECT fragrance_id, count(*) AS review_count, avg(rating) AS avg_rating
  FROM reviews GROUP BY fragrance_id
) r ON r.fragrance_id = f.id
LEFT JOIN (
  SELECT fragrance_id, count(*) AS similar_count FROM similar_fragrances GROUP BY fragrance_id
) s ON s.fragrance_id = f.id;
