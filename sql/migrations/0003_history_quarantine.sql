-- History beside the mirror: the current tables only ever hold upstream's present state.
CREATE TABLE fragrance_score_history (
  fragrance_id VARCHAR NOT NULL,
  score DOUBLE,
  valid_from TIMESTAMPTZ NOT NULL,
  valid_to TIMESTAMPTZ,
  run_id VARCHAR
);
CREATE TABLE removed_entities (
  entity VARCHAR NOT NULL,
  key VARCHAR NOT NULL,
  removed_at TIMESTAMPTZ NOT NULL,
  run_id VARCHAR,
  last_row JSON,
  restored_at TIMESTAMPTZ
);
CREATE TABLE quarantine (
  run_id VARCHAR,
  "at" TIMESTAMPTZ NOT NULL,
  endpoint VARCHAR,
  key VARCHAR,
  reason VARCHAR,
  raw JSON
);
CREATE TABLE review_digests (
  fragrance_id VARCHAR PRIMARY KEY,
  raw JSON,
  fetched_at TIMESTAMPTZ NOT NULL,
  run_id VARCHAR
);
