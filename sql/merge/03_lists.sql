-- Lists that replace what was stored for their key as a whole: similar lists, wearing
-- stats with their moods and occasions, brand catalogues. The last list per key wins; a
-- label or id repeated inside one list keeps its first (best) rank: staging (stage-rows.ts)
-- already dropped the repeats, so no window is needed here.
CREATE OR REPLACE TEMP TABLE w_similar AS
SELECT * FROM stg_similar_head QUALIFY row_number() OVER (PARTITION BY fragrance_id ORDER BY seq DESC) = 1;
DELETE FROM similar_fragrances WHERE fragrance_id IN (SELECT fragrance_id FROM w_similar);
INSERT INTO similar_fragrances
SELECT s.fragrance_id, s.similar_id, s.rank, s.similarity_score, batch_run(), batch_at()
FROM stg_similar s SEMI JOIN w_similar w ON s.seq = w.seq;

CREATE OR REPLACE TEMP TABLE w_wearing AS
SELECT * FROM stg_wearing QUALIFY row_number() OVER (PARTITION BY fragrance_id ORDER BY seq DESC) = 1;
INSERT INTO wearing_stats
SELECT fragrance_id, spring, summer, fall, winter, batch_run(), batch_at() FROM w_wearing
ON CONFLICT (fragrance_id) DO UPDATE SET
  spring = excluded.spring, summer = excluded.summer, fall = excluded.fall, winter = excluded.winter,
  _run_id = excluded._run_id, _loaded_at = excluded._loaded_at;
DELETE FROM wearing_moods WHERE fragrance_id IN (SELECT fragrance_id FROM w_wearing);
INSERT INTO wearing_moods
SELECT l.fragrance_id, l.label, l.rank, l.score, batch_run(), batch_at()
FROM stg_wearing_label l SEMI JOIN w_wearing w ON l.seq = w.seq
WHERE l.kind = 'mood';
DELETE FROM wearing_occasions WHERE fragrance_id IN (SELECT fragrance_id FROM w_wearing);
INSERT INTO wearing_occasions
SELECT l.fragrance_id, l.label, l.rank, l.score, batch_run(), batch_at()
FROM stg_wearing_label l SEMI JOIN w_wearing w ON l.seq = w.seq
WHERE l.kind = 'occasion';

CREATE OR REPLACE TEMP TABLE w_catalogue AS
SELECT * FROM stg_catalogue_head QUALIFY row_number() OVER (PARTITION BY brand_slug ORDER BY seq DESC) = 1;
DELETE FROM brand_fragrances WHERE brand_slug IN (SELECT brand_slug FROM w_catalogue);
INSERT INTO brand_fragrances
SELECT c.brand_slug, c.fragrance_id, batch_run(), batch_at()
FROM stg_catalogue c SEMI JOIN w_catalogue w ON c.seq = w.seq;
