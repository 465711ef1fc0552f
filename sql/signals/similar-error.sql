-- How far the nightly's similarity estimate (lists-near.sql: the cosine of the stored accord
-- vectors) is from the scores the service gave, over a bounded sample of the stored
-- similar-list pairs (the same pairs every run: ordered by a hash of the pair). The error is
-- signed, score minus estimate; its 1st and 99th percentiles bound it without the few pairs
-- whose accords changed after their list was read. $1: how many pairs at most.
WITH pairs AS (
  SELECT fragrance_id AS anchor, similar_id AS entry, similarity_score AS score
  FROM similar_fragrances
  ORDER BY hash(fragrance_id, similar_id)
  LIMIT $1
),
norms AS (
  SELECT fragrance_id, sqrt(sum(strength * strength)) AS norm
  FROM fragrance_accords
  WHERE fragrance_id IN (SELECT anchor FROM pairs UNION SELECT entry FROM pairs)
  GROUP BY 1
),
dots AS (
  SELECT p.anchor, p.entry, sum(x.strength * y.strength) AS dot
  FROM pairs p
  JOIN fragrance_accords x ON x.fragrance_id = p.anchor
  JOIN fragrance_accords y ON y.fragrance_id = p.entry AND y.accord = x.accord
  GROUP BY 1, 2
),
errors AS (
  SELECT p.score - coalesce(d.dot, 0) / (na.norm * ne.norm) AS err
  FROM pairs p
  JOIN norms na ON na.fragrance_id = p.anchor
  JOIN norms ne ON ne.fragrance_id = p.entry
  LEFT JOIN dots d ON d.anchor = p.anchor AND d.entry = p.entry
  WHERE na.norm > 0 AND ne.norm > 0
)
SELECT
  count(*)::INTEGER AS pairs,
  coalesce(quantile_cont(err, 0.01), 0)::DOUBLE AS low,
  coalesce(quantile_cont(err, 0.99), 0)::DOUBLE AS high
FROM errors;
