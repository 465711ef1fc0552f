-- Rows the current batch wrote, per table: every row a batch inserts or replaces carries the
-- batch's load time (lineage columns, or the table's own time column). $1 is the load time;
-- the loader inlines it as a literal (not batch_at()): a constant lets DuckDB skip row groups
-- by their min/max, so the count does not scan the older rows of large tables. The loader
-- runs only the arms of tables the batch's statements wrote.
SELECT 'fragrances' AS t, count(*) AS n FROM fragrances WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'fragrance_notes', count(*) FROM fragrance_notes WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'fragrance_accords', count(*) FROM fragrance_accords WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'brands', count(*) FROM brands WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'brand_fragrances', count(*) FROM brand_fragrances WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'perfumers', count(*) FROM perfumers WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'notes', count(*) FROM notes WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'accords', count(*) FROM accords WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'charts', count(*) FROM charts WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'chart_entries', count(*) FROM chart_entries WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'reviews', count(*) FROM reviews WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'similar_fragrances', count(*) FROM similar_fragrances WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'wearing_stats', count(*) FROM wearing_stats WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'wearing_moods', count(*) FROM wearing_moods WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'wearing_occasions', count(*) FROM wearing_occasions WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'api_calls', count(*) FROM api_calls WHERE _loaded_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'review_digests', count(*) FROM review_digests WHERE fetched_at = $1::TIMESTAMPTZ
UNION ALL SELECT 'quarantine', count(*) FROM quarantine WHERE "at" = $1::TIMESTAMPTZ
UNION ALL SELECT 'removed_entities', count(*) FROM removed_entities WHERE removed_at = $1::TIMESTAMPTZ;
