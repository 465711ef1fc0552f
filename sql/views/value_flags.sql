-- Values outside a range the spec states for their field, as stored: the loader refuses no
-- number for its range (a profile score of 5.3 is stored as sent) and this view flags it.
-- Derived from the current rows, so a flag goes away when upstream corrects the value.
-- Only stated ranges are here (docs/fragrance-api.md; test/warehouse/value-flags.test.ts
-- reads them from it): chart and top-list scores, for one, have none.
CREATE OR REPLACE VIEW value_flags AS
SELECT 'fragrances' AS table_name, id AS fragrance_id, NULL::VARCHAR AS entry, 'score' AS column_name,
  score AS value, 'Fragrance profile score: out of 5.0' AS rule, _run_id AS run_id
FROM fragrances WHERE score < 0 OR score > 5
UNION ALL
SELECT 'fragrance_accords', fragrance_id, 'position ' || position, 'strength', strength,
  'Fragrance profile accords[].strength: 0.0 to 1.0', _run_id
FROM fragrance_accords WHERE strength < 0 OR strength > 1
UNION ALL
SELECT 'reviews', fragrance_id, 'review of ' || date, 'rating', rating, 'Review rating: 0.5 to 5.0', _run_id
FROM reviews WHERE rating < 0.5 OR rating > 5
UNION ALL
SELECT 'similar_fragrances', fragrance_id, 'similar_id ' || similar_id, 'similarity_score', similarity_score,
  'Similar-fragrance entry similarityScore: 0.0 to 1.0', _run_id
FROM similar_fragrances WHERE similarity_score < 0 OR similarity_score > 1
UNION ALL
SELECT 'similar_fragrances_overflow', fragrance_id, 'rank ' || rank, 'similarity_score', similarity_score,
  'Similar-fragrance entry similarityScore: 0.0 to 1.0', _run_id
FROM similar_fragrances_overflow WHERE similarity_score < 0 OR similarity_score > 1
UNION ALL
SELECT 'wearing_stats', fragrance_id, NULL, season, share, 'Wearing stats seasons: each 0.0 to 1.0', _run_id
FROM (UNPIVOT wearing_stats ON spring, summer, fall, winter INTO NAME season VALUE share)
WHERE share < 0 OR share > 1
UNION ALL
SELECT 'wearing_stats', fragrance_id, NULL, 'spring+summer+fall+winter', spring + summer + fall + winter,
  'Wearing stats seasons: the four sum to approximately 1.0 (flagged beyond 0.01 either way)', _run_id
FROM wearing_stats WHERE abs(spring + summer + fall + winter - 1) > 0.01
UNION ALL
SELECT 'wearing_moods', fragrance_id, 'label ' || label, 'score', score, 'Wearing stats moods[].score: 0.0 to 1.0', _run_id
FROM wearing_moods WHERE score < 0 OR score > 1
UNION ALL
SELECT 'wearing_occasions', fragrance_id, 'label ' || label, 'score', score,
  'Wearing stats occasions[].score: 0.0 to 1.0', _run_id
FROM wearing_occasions WHERE score < 0 OR score > 1
UNION ALL
SELECT 'wearing_labels_overflow', fragrance_id, list || ' rank ' || rank, 'score', score,
  'Wearing stats ' || list || '[].score: 0.0 to 1.0', _run_id
FROM wearing_labels_overflow WHERE score < 0 OR score > 1;
