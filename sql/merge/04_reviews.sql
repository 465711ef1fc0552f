-- Reviews have no id upstream: the table holds multisets, never deduplicated by value.
-- 'replace' stores the given multiset as the fragrance's reviews. 'prepend' adds the newest
-- reviews, and only when they follow what is stored: total - count = the stored total
-- (prepends of one batch chain in order). A prepend whose total is already stored is a
-- replay and is skipped; one that leaves a gap is quarantined, so the planner re-reads the
-- fragrance's reviews in full instead of storing a multiset with a hole.
-- Heads are staged per mode (stg_reviews_replace, stg_reviews_prepend) so that a batch
-- without prepends (a first sync) runs none of the prepend statements. Reviews carry only
-- their head's seq (staging.ts): the key comes from the head. Staging holds only the last
-- replace per fragrance (stage-rows.ts), so no window picks it here.
-- merge: deletes reviews | reads stg_reviews_replace
DELETE FROM reviews WHERE fragrance_id IN (SELECT fragrance_id FROM stg_reviews_replace);
-- merge: inserts reviews | reads stg_reviews_replace | looks up stg_review
INSERT INTO reviews
SELECT w.fragrance_id, DATE '1970-01-01' + r.day, r.rating, r.text, batch_run(), batch_at()
FROM stg_review r JOIN stg_reviews_replace w ON r.seq = w.seq;

-- merge: inserts review_totals | reads stg_reviews_replace
INSERT INTO review_totals
SELECT fragrance_id, total, batch_at(), batch_run() FROM stg_reviews_replace
ON CONFLICT (fragrance_id) DO UPDATE SET
  total = excluded.total, updated_at = excluded.updated_at, run_id = excluded.run_id;

-- merge: creates w_review_prepend | reads stg_reviews_prepend | looks up stg_reviews_replace
CREATE OR REPLACE TEMP TABLE w_review_prepend AS
WITH p AS (
  SELECT h.*, coalesce(lag(h.total) OVER (PARTITION BY h.fragrance_id ORDER BY h.seq), t.total, 0) AS base
  FROM stg_reviews_prepend h
  LEFT JOIN stg_reviews_replace w ON w.fragrance_id = h.fragrance_id
  LEFT JOIN review_totals t ON t.fragrance_id = h.fragrance_id
  WHERE w.seq IS NULL OR h.seq > w.seq
)
SELECT *, bool_and(total - n = base) OVER (
  PARTITION BY fragrance_id ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
) AS applies
FROM p;

-- merge: inserts reviews | reads w_review_prepend | looks up stg_review
INSERT INTO reviews
SELECT p.fragrance_id, DATE '1970-01-01' + r.day, r.rating, r.text, batch_run(), batch_at()
FROM stg_review r JOIN (SELECT seq, fragrance_id FROM w_review_prepend WHERE applies) p ON r.seq = p.seq;

-- merge: inserts review_totals | reads w_review_prepend
INSERT INTO review_totals
SELECT fragrance_id, max(total), batch_at(), batch_run() FROM w_review_prepend WHERE applies
GROUP BY fragrance_id
ON CONFLICT (fragrance_id) DO UPDATE SET
  total = excluded.total, updated_at = excluded.updated_at, run_id = excluded.run_id;

-- merge: inserts quarantine | reads w_review_prepend
INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
SELECT batch_run(), batch_at(), '/v1/fragrances/{id}/reviews', p.fragrance_id,
  'reviews prepend leaves a gap: stored total ' || coalesce(t.total::VARCHAR, 'none') || ', got '
    || p.n || ' newest of ' || p.total,
  json_object('mode', 'prepend', 'total', p.total, 'count', p.n), 'item'
FROM w_review_prepend p LEFT JOIN review_totals t ON t.fragrance_id = p.fragrance_id
WHERE NOT p.applies AND p.total > coalesce(t.total, 0)
  AND NOT EXISTS (
    SELECT 1 FROM quarantine q
    WHERE q.run_id = batch_run() AND q.key = p.fragrance_id AND q.endpoint = '/v1/fragrances/{id}/reviews'
      AND q.raw::VARCHAR = json_object('mode', 'prepend', 'total', p.total, 'count', p.n)::VARCHAR
  );
