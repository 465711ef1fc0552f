-- Per-connection helpers for the merge statements: the batch's run id and load time, read
-- from the one-row stg_batch table (appended per batch) so that every statement of a batch
-- stamps the same values.
CREATE OR REPLACE TEMP MACRO batch_run() AS (SELECT run_id FROM stg_batch);
CREATE OR REPLACE TEMP MACRO batch_at() AS (SELECT "at"::TIMESTAMPTZ FROM stg_batch);

-- A checkpoint rewrites the changed parts of the file and its indexes; at the default 16MB of
-- WAL a full sync checkpoints inside many batches. Fewer, larger checkpoints cost far less in
-- total; the WAL is as durable, and close() checkpoints anyway.
SET checkpoint_threshold = '256MB';
