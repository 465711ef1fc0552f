-- How many fragrances use each note, per layer. Notes are matched by name (the profile
-- lists note names); notes no profile uses appear with zero.
CREATE OR REPLACE VIEW note_popularity AS
WITH used AS (
  SELECT note,
    count(DISTINCT fragrance_id) AS fragrances,
    count(*) FILTER (WHERE layer = 'top') AS as_top,
    count(*) FILTER (WHERE layer = 'middle') AS as_middle,
    count(*) FILTER (WHERE layer = 'base') AS as_base
  FROM fragrance_notes GROUP BY note
)
SELECT
  coalesce(u.note, n.name) AS note,
  n.slug,
  n.family,
  coalesce(u.fragrances, 0) AS fragrances,
  coalesce(u.as_top, 0) AS as_top,
  coalesce(u.as_middle, 0) AS as_middle,
  coalesce(u.as_base, 0) AS as_base
FROM used u
FULL OUTER JOIN notes n ON n.name = u.note;
