-- Progress marks, committed with the rows they describe.
-- merge: inserts sync_items | reads stg_mark_discovered
INSERT INTO sync_items (entity, key, first_seen, first_source, removed)
SELECT entity, key, batch_at(), arg_min(source, seq), false FROM stg_mark_discovered GROUP BY entity, key
ON CONFLICT (entity, key) DO UPDATE SET first_source = coalesce(sync_items.first_source, excluded.first_source);

-- Fetched marks: one upsert (a new key gets its row and its fetch times at once); a dataset
-- the batch did not fetch keeps its stored time.
-- merge: inserts sync_items | reads stg_mark_fetched
INSERT INTO sync_items (entity, key, first_seen, removed, fetched_profile, fetched_similar,
  fetched_wearing, fetched_reviews, fetched_review_digest, fetched_catalogue)
SELECT entity, key, batch_at(), false,
  CASE WHEN bool_or(dataset = 'profile') THEN batch_at() END,
  CASE WHEN bool_or(dataset = 'similar') THEN batch_at() END,
  CASE WHEN bool_or(dataset = 'wearing') THEN batch_at() END,
  CASE WHEN bool_or(dataset = 'reviews') THEN batch_at() END,
  CASE WHEN bool_or(dataset = 'reviewDigest') THEN batch_at() END,
  CASE WHEN bool_or(dataset = 'catalogue') THEN batch_at() END
FROM stg_mark_fetched GROUP BY entity, key
ON CONFLICT (entity, key) DO UPDATE SET
  fetched_profile = coalesce(excluded.fetched_profile, sync_items.fetched_profile),
  fetched_similar = coalesce(excluded.fetched_similar, sync_items.fetched_similar),
  fetched_wearing = coalesce(excluded.fetched_wearing, sync_items.fetched_wearing),
  fetched_reviews = coalesce(excluded.fetched_reviews, sync_items.fetched_reviews),
  fetched_review_digest = coalesce(excluded.fetched_review_digest, sync_items.fetched_review_digest),
  fetched_catalogue = coalesce(excluded.fetched_catalogue, sync_items.fetched_catalogue);

-- Stale marks (a nightly's signals): the dataset's fetch time is cleared, so it stays owed
-- until fetched again; a fetch of the same item and dataset later in the batch wins. Driven
-- by their own staging table: in a batch without one (nearly all) it does not run at all.
-- merge: updates sync_items | reads stg_mark_stale | looks up stg_mark_fetched
UPDATE sync_items SET
  fetched_profile = CASE WHEN s.datasets.profile THEN NULL ELSE fetched_profile END,
  fetched_similar = CASE WHEN s.datasets.similar THEN NULL ELSE fetched_similar END,
  fetched_catalogue = CASE WHEN s.datasets.catalogue THEN NULL ELSE fetched_catalogue END
FROM (
  SELECT m.entity, m.key, {
    'profile': bool_or(m.ds = 'profile'), 'similar': bool_or(m.ds = 'similar'), 'catalogue': bool_or(m.ds = 'catalogue')
  } AS datasets
  FROM (SELECT entity, key, dataset AS ds, max(seq) AS seq FROM stg_mark_stale GROUP BY ALL) m
  WHERE NOT EXISTS (
    SELECT 1 FROM stg_mark_fetched f
    WHERE f.entity = m.entity AND f.key = m.key AND f.dataset = m.ds AND f.seq > m.seq
  )
  GROUP BY m.entity, m.key
) s
WHERE sync_items.entity = s.entity AND sync_items.key = s.key;

-- Staging holds only the last mark per walk (stage-rows.ts). Its row is replaced whole (every
-- column is the mark's), so a DELETE and an INSERT leave what an upsert did, for less: 4.7 ->
-- 3.0 ms per batch (docs/benchmarks.md, Session 10: loader).
-- merge: deletes sync_walks | reads stg_mark_walk
DELETE FROM sync_walks WHERE walk IN (SELECT walk FROM stg_mark_walk);

-- merge: inserts sync_walks | reads stg_mark_walk
INSERT INTO sync_walks (walk, page, total, done, "at", run_id, page_size, kept_pages)
SELECT walk, page, total, done, batch_at(), batch_run(), page_size, kept_pages FROM stg_mark_walk;
