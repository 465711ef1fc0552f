-- Lists that replace what was stored for their key as a whole: similar lists, wearing
-- stats with their moods and occasions, brand catalogues. The last list per key wins; a
-- label or id repeated inside one list keeps its first (best) rank in the contract table
-- and every later occurrence in the list's overflow table: staging (stage-rows.ts) already
-- split them, and it holds only the last list per key, so no window is needed here. Entries
-- carry only their list's seq (staging.ts): the key comes from the list's head row (one per
-- seq); overflow rows carry their key.
-- merge: deletes similar_fragrances | reads stg_similar_head
DELETE FROM similar_fragrances WHERE fragrance_id IN (SELECT fragrance_id FROM stg_similar_head);
-- merge: inserts similar_fragrances | reads stg_similar, stg_similar_head
INSERT INTO similar_fragrances
SELECT w.fragrance_id, s.similar_id, s.rank, s.similarity_score, batch_run(), batch_at()
FROM stg_similar s JOIN stg_similar_head w ON s.seq = w.seq;
-- merge: deletes similar_fragrances_overflow | reads stg_similar_head
DELETE FROM similar_fragrances_overflow WHERE fragrance_id IN (SELECT fragrance_id FROM stg_similar_head);
-- merge: inserts similar_fragrances_overflow | reads stg_similar_overflow
INSERT INTO similar_fragrances_overflow
SELECT fragrance_id, similar_id, rank, similarity_score, batch_run(), batch_at() FROM stg_similar_overflow;

-- merge: inserts wearing_stats | reads stg_wearing
INSERT INTO wearing_stats
SELECT fragrance_id, spring, summer, fall, winter, batch_run(), batch_at() FROM stg_wearing
ON CONFLICT (fragrance_id) DO UPDATE SET
  spring = excluded.spring, summer = excluded.summer, fall = excluded.fall, winter = excluded.winter,
  _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;
-- merge: deletes wearing_moods | reads stg_wearing
DELETE FROM wearing_moods WHERE fragrance_id IN (SELECT fragrance_id FROM stg_wearing);
-- merge: inserts wearing_moods | reads stg_wearing_mood, stg_wearing
INSERT INTO wearing_moods
SELECT w.fragrance_id, l.label, l.rank, l.score, batch_run(), batch_at()
FROM stg_wearing_mood l JOIN stg_wearing w ON l.seq = w.seq;
-- merge: deletes wearing_occasions | reads stg_wearing
DELETE FROM wearing_occasions WHERE fragrance_id IN (SELECT fragrance_id FROM stg_wearing);
-- merge: inserts wearing_occasions | reads stg_wearing_occasion, stg_wearing
INSERT INTO wearing_occasions
SELECT w.fragrance_id, l.label, l.rank, l.score, batch_run(), batch_at()
FROM stg_wearing_occasion l JOIN stg_wearing w ON l.seq = w.seq;
-- merge: deletes wearing_labels_overflow | reads stg_wearing
DELETE FROM wearing_labels_overflow WHERE fragrance_id IN (SELECT fragrance_id FROM stg_wearing);
-- merge: inserts wearing_labels_overflow | reads stg_label_overflow
INSERT INTO wearing_labels_overflow
SELECT fragrance_id, list, label, rank, score, batch_run(), batch_at() FROM stg_label_overflow;

-- Only a catalogue walk known complete replaces the brand's memberships; one that is not
-- (jobs/paging.ts) adds its members and removes nothing.
-- merge: deletes brand_fragrances | reads stg_catalogue_head
DELETE FROM brand_fragrances WHERE brand_slug IN (SELECT brand_slug FROM stg_catalogue_head WHERE complete);
-- merge: inserts brand_fragrances | reads stg_catalogue, stg_catalogue_head
INSERT INTO brand_fragrances
SELECT w.brand_slug, c.fragrance_id, batch_run(), batch_at()
FROM stg_catalogue c JOIN stg_catalogue_head w ON c.seq = w.seq
ON CONFLICT (brand_slug, fragrance_id) DO UPDATE SET _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;
