-- One row per brand: its catalogue size and what the mirror holds of it.
CREATE OR REPLACE VIEW brand_overview AS
SELECT
  b.slug, b.name, b.country,
  coalesce(c.catalogue_size, 0) AS catalogue_size,
  coalesce(f.fragrances, 0) AS fragrances_with_profile,
  f.avg_score,
  f.first_year,
  f.last_year
FROM brands b
LEFT JOIN (SELECT brand_slug, count(*) AS catalogue_size FROM brand_fragrances GROUP BY brand_slug) c
  ON c.brand_slug = b.slug
LEFT JOIN (
  SELECT brand_slug, count(*) AS fragrances, avg(score) AS avg_score, min(year) AS first_year, max(year) AS last_year
  FROM fragrances WHERE brand_slug IS NOT NULL GROUP BY brand_slug
) f ON f.brand_slug = b.slug;
