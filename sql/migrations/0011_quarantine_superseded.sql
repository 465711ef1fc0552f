-- When a later fetch of the same record (endpoint, key, scope) was quarantined too, with
-- another answer: the newer row stands for the record, this one is closed (not released: the
-- record is still not stored). NULL while it is the record's latest row. Rows of older
-- versions stay as they were: the next refusal of their record closes them.
ALTER TABLE quarantine ADD COLUMN superseded_at TIMESTAMPTZ;
