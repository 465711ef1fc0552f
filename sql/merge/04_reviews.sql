-- Reviews have no id upstream: the table holds multisets, never deduplicated by value.
-- 'replace' stores the given multiset as the fragrance's reviews. 'prepend' adds the newest
-- reviews, and only when they follow what is stored: total - count = the stored total
-- (prepends of one batch chain in order). A prepend whose total is already stored is a
-- replay and is skipped; one that leaves a gap is quarantined, so the planner re-reads the
-- fragrance's reviews in full instead of storing a multiset with a hole.
CREATE OR REPLACE TEMP TABLE w_review_replace AS
SELECT * FROM stg_reviews_head WHERE mode = 'replace'
QUALIFY row_number() OVER (PARTITION BY fragrance_id ORDER BY seq DESC) = 1;

DELETE FROM reviews WHERE fragrance_id IN (SELECT fragrance_id FROM w_review_replace);
INSERT INTO reviews
SELECT r.fragrance_id, r.date::DATE, r.rating, r.text, batch_run(), batch_at()
FROM stg_review r SEMI JOIN w_review_replace w ON r.seq = w.seq;

INSERT INTO review_totals
SELECT fragrance_id, total, batch_at(), batch_run() FROM w_review_replace
ON CONFLICT (fragrance_id) DO UPDATE SET
  total = excluded.total, updated_at = excluded.updated_at, run_id = excluded.run_id;

CREATE OR REPLACE TEMP TABLE w_review_prepend AS
WITH p AS (
  SELECT h.*, coalesce(lag(h.total) OVER (PARTITION BY h.fragrance_id ORDER BY h.seq), t.total, 0) AS base
  FROM stg_reviews_head h
  LEFT JOIN w_review_replace w ON w.fragrance_id = h.fragrance_id
  LEFT JOIN review_totals t ON t.fragrance_id = h.fragrance_id
  WHERE h.mode = 'prepend' AND (w.seq IS NULL OR h.seq > w.seq)
)
SELECT *, bool_and(total - n = base) OVER (
  PARTITION BY fragrance_id ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
) AS applies
FROM p;

INSERT INTO reviews
SELECT r.fragrance_id, r.date::DATE, r.rating, r.text, batch_run(), batch_at()
FROM stg_review r SEMI JOIN (SELECT seq FROM w_review_prepend WHERE applies) p ON r.seq = p.seq;

INSERT INTO review_totals
SELECT fragrance_id, max(total), batch_at(), batch_run() FROM w_review_prepend WHERE applies
GROUP BY fragrance_id
ON CONFLICT (fragrance_id) DO UPDATE SET
  total = excluded.total, updated_at = excluded.updated_at, run_id = excluded.run_id;

INSERT INTO quarantine
SELECT batch_run(), batch_at(), '/v1/fragrances/{id}/reviews', p.fragrance_id,
  'reviews prepend leaves a gap: stored total ' || coalesce(t.total::VARCHAR, 'none') || ', got '
    || p.n || ' newest of ' || p.total,
  json_object('mode', p.mode, 'total', p.total, 'count', p.n)
FROM w_review_prepend p LEFT JOIN review_totals t ON t.fragrance_id = p.fragrance_id
WHERE NOT p.applies AND p.total > coalesce(t.total, 0)
  AND NOT EXISTS (
    SELECT 1 FROM quarantine q
    WHERE q.run_id = batch_run() AND q.key = p.fragrance_id AND q.endpoint = '/v1/fragrances/{id}/reviews'
      AND q.raw::VARCHAR = json_object('mode', p.mode, 'total', p.total, 'count', p.n)::VARCHAR
  );
