-- A fragrance's stored similar list in the service's order, repeats (the overflow table)
-- included: a mover's own list read in this run before its profile showed the change
-- (release-probe.ts), as the read gave it. $1: the fragrance's id.
SELECT similar_id AS id, similarity_score AS score
FROM (
  SELECT similar_id, rank, similarity_score FROM similar_fragrances WHERE fragrance_id = $1
  UNION ALL
  SELECT similar_id, rank, similarity_score FROM similar_fragrances_overflow WHERE fragrance_id = $1
)
ORDER BY rank;
