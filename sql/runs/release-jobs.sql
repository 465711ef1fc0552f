-- Releases the open rows of jobs that failed (scope 'job': the job's kind as endpoint, its
-- payload as raw, nothing received) once a later sync fetched what the job was to fetch, as
-- the warehouse's own state records it: a detail job's dataset of its item (sync_items, a
-- fetch or a 404 that found it gone), a walk's page (sync_walks 'fragrances@N', or page 1
-- read since with a total that ends the list before page N), a whole list walk (accords,
-- charts), trending answered (api_calls), a batch's every id fetched or gone. $1: now.
UPDATE quarantine SET released_at = $1::TIMESTAMPTZ WHERE rowid IN (
  SELECT q.rowid FROM quarantine q
  LEFT JOIN (VALUES
      ('fragranceProfile', 'fragrance', 'id'), ('fragranceSimilar', 'fragrance', 'id'),
      ('fragranceWearing', 'fragrance', 'id'), ('fragranceReviews', 'fragrance', 'id'),
      ('reviewDigest', 'fragrance', 'id'), ('fragranceEnrich', 'fragrance', 'id'),
      ('brand', 'brand', 'slug'), ('brandCatalogue', 'brand', 'slug'),
      ('perfumer', 'perfumer', 'slug'), ('note', 'note', 'slug'), ('chart', 'chart', 'slug')
    ) d(kind, entity, field) ON d.kind = q.endpoint
  LEFT JOIN sync_items i ON i.entity = d.entity AND i.key = (q.raw->>d.field)
  WHERE q.released_at IS NULL AND q.superseded_at IS NULL AND q.scope = 'job' AND (
    (CASE q.endpoint
       WHEN 'fragranceProfile' THEN i.fetched_profile
       WHEN 'fragranceSimilar' THEN i.fetched_similar
       WHEN 'fragranceWearing' THEN i.fetched_wearing
       WHEN 'fragranceReviews' THEN i.fetched_reviews
       WHEN 'reviewDigest' THEN i.fetched_review_digest
       WHEN 'fragranceEnrich' THEN
         CASE WHEN i.fetched_similar < i.fetched_reviews THEN i.fetched_similar ELSE i.fetched_reviews END
       WHEN 'brandCatalogue' THEN i.fetched_catalogue
       ELSE i.fetched_profile
     END) > q."at"
    OR (q.endpoint IN ('fragrancesPage', 'notesPage') AND EXISTS (
      SELECT 1 FROM sync_walks w
      WHERE w."at" > q."at" AND (
        (w.walk = replace(q.endpoint, 'sPage', 's@') || (q.raw->>'page') AND w.done)
        OR (w.walk = replace(q.endpoint, 'sPage', 's@1')
          AND (q.raw->>'page')::INTEGER > greatest(1, ceil(w.total / coalesce(w.page_size, 50))))
      )))
    OR (q.endpoint IN ('accords', 'charts') AND EXISTS (
      SELECT 1 FROM sync_walks w WHERE w.walk = q.endpoint AND w.done AND w."at" > q."at"))
    OR (q.endpoint = 'trending' AND EXISTS (
      SELECT 1 FROM api_calls c WHERE c.endpoint = '/v1/trending' AND c.status = 200 AND c."at" > q."at"))
    OR (q.endpoint = 'batch' AND NOT EXISTS (
      SELECT 1 FROM unnest(from_json((q.raw->'ids'), '["VARCHAR"]')) b(id)
      LEFT JOIN sync_items f ON f.entity = 'fragrance' AND f.key = b.id
      WHERE NOT (coalesce(f.fetched_profile > q."at", false) OR coalesce(f.removed, false))))
  )
)
RETURNING endpoint;
