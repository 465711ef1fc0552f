-- How fresh the mirror is, per entity and dataset: live items, those never fetched, those
-- older than the freshness policy the last sync ran with (freshness_policy, config
-- freshness.*), and the oldest fetch's age. The per-item times are sync_items.fetched_*.
-- Ages are on the service's clock, as the nightly judges them (src/plan/service-clock.ts): a
-- fetch time plus the offset of the latest run started at or before it, against now plus the
-- offset the latest run recorded (sync_run_clocks; 0 where no run recorded one).
CREATE OR REPLACE VIEW freshness AS
WITH clocks AS (
  SELECT r.started_at, c.clock_offset_ms FROM sync_run_clocks c JOIN sync_runs r USING (run_id)
), service_now AS (
  SELECT epoch(now()) + coalesce((SELECT clock_offset_ms FROM clocks ORDER BY started_at DESC LIMIT 1), 0) / 1000 AS s
), fetched AS (
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
), aged AS (
  SELECT f.*, (SELECT s FROM service_now) - (epoch(f.fetched_at) + coalesce(c.clock_offset_ms, 0) / 1000) AS age_s
  FROM fetched f ASOF LEFT JOIN clocks c ON f.fetched_at >= c.started_at
)
SELECT
  entity,
  dataset,
  any_value(max_age_hours) AS max_age_hours,
  count(*) AS items,
  count(*) FILTER (WHERE fetched_at IS NULL) AS never_fetched,
  count(*) FILTER (WHERE age_s > max_age_hours * 3600) AS stale,
  round(max(age_s) / 3600, 2) AS oldest_age_hours
FROM aged
GROUP BY entity, dataset
ORDER BY entity, dataset;
