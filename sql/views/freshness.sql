-- How fresh the mirror is, per entity and dataset: live items, those never fetched, those
-- older than the freshness policy the last sync ran with (freshness_policy, config
-- freshness.*), and the oldest fetch's age. The per-item times are sync_items.fetched_*.
CREATE OR REPLACE VIEW freshness AS
WITH fetched AS (
  SELECT i.entity, p.dataset, p.max_age_hours,
    CASE p.dataset
      WHEN 'profile' THEN i.fetched_profile
      WHEN 'similar' THEN i.fetched_similar
      WHEN 'wearing' THEN i.fetched_wearing
      WHEN 'reviews' THEN i.fetched_reviews
      WHEN 'reviewDigest' THEN i.fetched_review_digest
      WHEN 'catalogue' THEN i.fetched_catalogue
    END AS fetched_at
  FROM sync_items i JOIN freshness_policy p ON p.entity = i.entity
  WHERE NOT i.removed
)
SELECT
  entity,
  dataset,
  any_value(max_age_hours) AS max_age_hours,
  count(*) AS items,
  count(*) FILTER (WHERE fetched_at IS NULL) AS never_fetched,
  count(*) FILTER (WHERE epoch(now()) - epoch(fetched_at) > max_age_hours * 3600) AS stale,
  round(max(epoch(now()) - epoch(fetched_at)) / 3600, 2) AS oldest_age_hours
FROM fetched
GROUP BY entity, dataset
ORDER BY entity, dataset;
