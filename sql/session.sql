-- Per-connection helpers for the merge statements: the batch's run id and load time, so that
-- every statement of a batch stamps the same values. The loader sets both variables at the
-- start of each batch. A variable is a constant when the statement is planned; a scalar
-- subquery on a one-row table (as before) cost every statement a join, ~2 ms even on
-- tiny inputs and up to a third of some upserts (measured on a replayed 5k sync).
CREATE OR REPLACE TEMP MACRO batch_run() AS getvariable('fragsync_batch_run');
CREATE OR REPLACE TEMP MACRO batch_at() AS getvariable('fragsync_batch_at');
-- The first and last send time of the batch's calls (NULL when it has none): the ledger's
-- replay check reads only the stored calls sent in that stretch (07_ledger.sql).
CREATE OR REPLACE TEMP MACRO batch_calls_from() AS getvariable('fragsync_calls_from');
CREATE OR REPLACE TEMP MACRO batch_calls_to() AS getvariable('fragsync_calls_to');

-- A checkpoint rewrites the changed parts of the file and its indexes; at the default 16MB of
-- WAL a full sync checkpoints inside many batches. Fewer, larger checkpoints cost far less in
-- total; the WAL is as durable, and close() checkpoints anyway. Until a checkpoint, the rows
-- written since the last one and the primary-key indexes they touched stay in memory (at
-- 256MB a 20k sync held about 430 MB there and never checkpointed; at 64MB up to 85 MiB of
-- rows and 36 of index entries): 32MB halves that for twice as many checkpoints (session 10).
SET checkpoint_threshold = '32MB';

-- DuckDB's own memory: by default 80% of the machine's RAM, which it fills with cached
-- blocks and indexes as the warehouse grows (the sync's RSS grew with the catalogue). Bounded
-- here, checkpointed data and index nodes are evicted and read back when needed, and what
-- does not fit is spilled to <warehouse>.tmp. A 20k sync peaks at about 150-160MB (rows not
-- yet checkpointed, the index entries they added, cached blocks); a larger catalogue fills
-- whatever the limit allows with cached blocks of its larger tables, so the limit sits at
-- that peak (was 192MB, then 160MB): what is over the limit is evicted and read back, and a
-- 120k sync holds to 96MB beside a checkpoint threshold of 32MB (session 10), so the sync's
-- RSS hardly depends on the catalogue. The export raises it while it writes Parquet
-- (export.ts). See docs/benchmarks.md, "Scale", sessions 9 and 10. The primary keys' indexes
-- stay in memory and grow with the warehouse: a batch that runs out of this limit doubles it
-- and loads again (loader.ts; bench:load's denser catalogue needs it from ~40k fragrances).
SET memory_limit = '96MB';

-- What DuckDB frees goes back to its allocator (jemalloc), which kept the pages until a thread
-- of DuckDB's allocated again: in the 2 s after a checkpoint (the rows and index entries written
-- out; duckdb_memory() down to 10-17 MiB) a 120k sync still held 158-168 MiB beside its two V8
-- heaps, and the larger the tables, the more. jemalloc's background thread returns them within
-- about a second: a 120k sync's peak 469-479 -> 420-427 MiB, side by side 469 -> 427, while a
-- 20k sync's stays where it was (368-383 against 335-372), so the peak grows less with the
-- catalogue (1.27 -> 1.15, medians of the runs). The price: about 4% more CPU per call, pages
-- faulted in again (60-70% more minor faults). Session 11, docs/benchmarks.md "Scale".
SET allocator_background_threads = true;

-- One thread: the merges are many small statements, and on the 2 cores a sync shares with
-- its fetch side, DuckDB's second thread cost more (task scheduling, idle spinning) than it
-- gained. Measured on a replayed 5k sync: loader CPU 8.3 s -> 6.7 s, wall 8.4 s -> 6.5 s.
SET threads = 1;
