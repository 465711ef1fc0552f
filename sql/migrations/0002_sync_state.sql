-- Durable progress: what is known, when each dataset was last fetched, how far each walk got.
-- Written in the same transaction as the rows it describes.
CREATE TABLE sync_items (
  entity VARCHAR NOT NULL,
  key VARCHAR NOT NULL,
  first_seen TIMESTAMPTZ NOT NULL,
  first_source VARCHAR,
  fetched_profile TIMESTAMPTZ,
  fetched_similar TIMESTAMPTZ,
  fetched_wearing TIMESTAMPTZ,
  fetched_reviews TIMESTAMPTZ,
  fetched_review_digest TIMESTAMPTZ,
  fetched_catalogue TIMESTAMPTZ,
  last_changed TIMESTAMPTZ,
  removed BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY (entity, key)
);
CREATE TABLE sync_walks (
  walk VARCHAR PRIMARY KEY,
  page INTEGER NOT NULL,
  total INTEGER NOT NULL,
  done BOOLEAN NOT NULL,
  "at" TIMESTAMPTZ NOT NULL,
  run_id VARCHAR
);
CREATE TABLE review_totals (
  fragrance_id VARCHAR PRIMARY KEY,
  total INTEGER NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  run_id VARCHAR
);
