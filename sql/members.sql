-- How many live fragrances each perfumer and note covers: their popularity in a nightly's
-- order of stale refreshes (src/plan/priority.ts). Brands use brand_fragrances (SyncState).
-- Notes are named in fragrance_notes by name; the note list gives each name its slug.
SELECT 'perfumer|' || perfumer_slug AS k, count(*)::INTEGER AS n
FROM fragrances WHERE perfumer_slug IS NOT NULL GROUP BY perfumer_slug
UNION ALL
SELECT 'note|' || n.slug AS k, count(DISTINCT fn.fragrance_id)::INTEGER AS n
FROM fragrance_notes fn JOIN notes n ON n.name = fn.note GROUP BY n.slug;
