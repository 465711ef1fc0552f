-- Progress marks, committed with the rows they describe.
INSERT INTO sync_items (entity, key, first_seen, first_source, removed)
SELECT entity, key, batch_at(), arg_min(source, seq), false FROM stg_mark_discovered GROUP BY entity, key
ON CONFLICT (entity, key) DO UPDATE SET first_source = coalesce(sync_items.first_source, excluded.first_source);

INSERT INTO sync_items (entity, key, first_seen, removed)
SELECT DISTINCT entity, key, batch_at(), false FROM stg_mark_fetched
ON CONFLICT (entity, key) DO NOTHING;

UPDATE sync_items s SET
  fetched_profile = CASE WHEN m.profile THEN batch_at() ELSE s.fetched_profile END,
  fetched_similar = CASE WHEN m.similar THEN batch_at() ELSE s.fetched_similar END,
  fetched_wearing = CASE WHEN m.wearing THEN batch_at() ELSE s.fetched_wearing END,
  fetched_reviews = CASE WHEN m.reviews THEN batch_at() ELSE s.fetched_reviews END,
  fetched_review_digest = CASE WHEN m.review_digest THEN batch_at() ELSE s.fetched_review_digest END,
  fetched_catalogue = CASE WHEN m.catalogue THEN batch_at() ELSE s.fetched_catalogue END
FROM (
  SELECT entity, key,
    bool_or(dataset = 'profile') AS profile, bool_or(dataset = 'similar') AS similar,
    bool_or(dataset = 'wearing') AS wearing, bool_or(dataset = 'reviews') AS reviews,
    bool_or(dataset = 'reviewDigest') AS review_digest, bool_or(dataset = 'catalogue') AS catalogue
  FROM stg_mark_fetched GROUP BY entity, key
) m
WHERE s.entity = m.entity AND s.key = m.key;

INSERT INTO sync_walks
SELECT walk, page, total, done, batch_at(), batch_run() FROM stg_mark_walk
QUALIFY row_number() OVER (PARTITION BY walk ORDER BY seq DESC) = 1
ON CONFLICT (walk) DO UPDATE SET
  page = excluded.page, total = excluded.total, done = excluded.done, "at" = excluded."at", run_id = excluded.run_id;
