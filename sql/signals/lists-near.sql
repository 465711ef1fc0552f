-- The stored similar lists a fragrance (a release, or one whose accords changed) most likely
-- entered: its estimated score against each stored fragrance (the cosine of the two accord
-- vectors, from fragrance_accords) reaches that list's lowest stored score less $3, the
-- estimate's observed error (similar-error.sql). A list that names it already is left out:
-- it is owed by the accord change itself. $1: its id; $2: its accords as a JSON list of
-- {"name", "strength"}; $3: the margin.
WITH n AS (
  SELECT j ->> 'name' AS accord, (j ->> 'strength')::DOUBLE AS strength
  FROM (SELECT unnest(from_json($2::JSON, '["JSON"]')) AS j)
),
nnorm AS (SELECT sqrt(sum(strength * strength)) AS norm FROM n),
dots AS (
  SELECT a.fragrance_id, sum(a.strength * n.strength) AS dot
  FROM fragrance_accords a JOIN n USING (accord)
  WHERE a.fragrance_id <> $1
  GROUP BY 1
),
norms AS (
  SELECT fragrance_id, sqrt(sum(strength * strength)) AS norm
  FROM fragrance_accords
  WHERE fragrance_id IN (SELECT fragrance_id FROM dots)
  GROUP BY 1
),
lists AS (
  SELECT fragrance_id, min(similarity_score) AS lowest, bool_or(similar_id = $1) AS names
  FROM similar_fragrances
  WHERE fragrance_id IN (SELECT fragrance_id FROM dots)
  GROUP BY 1
)
SELECT d.fragrance_id AS id, d.dot / (norms.norm * nnorm.norm) AS estimate, lists.lowest AS lowest
FROM dots d JOIN norms USING (fragrance_id) JOIN lists USING (fragrance_id), nnorm
WHERE NOT lists.names AND d.dot / (norms.norm * nnorm.norm) >= lists.lowest - $3
ORDER BY d.dot / (norms.norm * nnorm.norm) - lists.lowest DESC, id;
