-- The lowest stored score of each of the given fragrances' similar lists, for those lists
-- that do not name $1 yet (a mover's probes: release-probe.ts). $1: the mover's id; $2: the
-- fragrances as a JSON list of ids.
SELECT fragrance_id AS id, min(similarity_score) AS lowest
FROM similar_fragrances
WHERE fragrance_id IN (SELECT unnest(from_json($2::JSON, '["VARCHAR"]')))
GROUP BY fragrance_id
HAVING NOT bool_or(similar_id = $1);
