-- Per-connection helpers for the merge statements: the batch's run id and load time, read
-- from the one-row stg_batch table (appended per batch) so that every statement of a batch
-- stamps the same values.
CREATE OR REPLACE TEMP MACRO batch_run() AS (SELECT run_id FROM stg_batch);
CREATE OR REPLACE TEMP MACRO batch_at() AS (SELECT "at"::TIMESTAMPTZ FROM stg_batch);
