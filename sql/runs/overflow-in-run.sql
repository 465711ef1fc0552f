-- The rows one run stored in the overflow tables (entries the contract's primary keys cannot
-- hold: tied chart ranks, an id or a label repeated in one list; docs/data-dictionary.md,
-- "Key collisions"), per table. The merge stamps every row it writes with its run (_run_id),
-- and a list read again replaces its rows, so these are the run's rows as they stand.
SELECT 'chart_entries_overflow' AS table_name, count(*)::INTEGER AS row_count
FROM chart_entries_overflow WHERE _run_id = $1
UNION ALL
SELECT 'similar_fragrances_overflow', count(*)::INTEGER FROM similar_fragrances_overflow WHERE _run_id = $1
UNION ALL
SELECT 'wearing_labels_overflow', count(*)::INTEGER FROM wearing_labels_overflow WHERE _run_id = $1;
