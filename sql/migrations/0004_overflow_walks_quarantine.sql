-- Entries of a list the contract's primary key cannot hold as a second row: a similar list
-- naming an id twice, a wearing list repeating a label, a chart with tied ranks. The first
-- occurrence (in API order) is the contract row; every later one is kept here, with the
-- contract table's columns, so nothing the service sent is lost. Replaced with its list.
CREATE TABLE similar_fragrances_overflow (
  fragrance_id VARCHAR NOT NULL,
  similar_id VARCHAR,
  rank INTEGER NOT NULL,
  similarity_score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (fragrance_id, rank)
);
-- Moods and occasions in one table: `list` says which.
CREATE TABLE wearing_labels_overflow (
  fragrance_id VARCHAR NOT NULL,
  list VARCHAR NOT NULL CHECK (list IN ('moods', 'occasions')),
  label VARCHAR,
  rank INTEGER NOT NULL,
  score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (fragrance_id, list, rank)
);
CREATE TABLE chart_entries_overflow (
  chart_slug VARCHAR NOT NULL,
  snapshot_date DATE NOT NULL,
  position INTEGER NOT NULL,
  rank INTEGER,
  fragrance_id VARCHAR,
  name VARCHAR,
  brand VARCHAR,
  score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (chart_slug, snapshot_date, position)
);

-- The page size a walk page was read at: the service's pagination.limit ("the page size
-- used"), which may be smaller than the size asked for. NULL on rows of older versions,
-- which always read at 50.
ALTER TABLE sync_walks ADD COLUMN page_size INTEGER;

-- What a quarantine row holds: 'response' (a whole response), 'entry' (one entry of a list
-- whose other entries loaded), 'item' (a record the loader could not store), 'job' (a job
-- that failed); NULL on rows of older versions. released_at: when `fragsync quarantine
-- --revalidate` loaded it after all.
ALTER TABLE quarantine ADD COLUMN scope VARCHAR;
ALTER TABLE quarantine ADD COLUMN released_at TIMESTAMPTZ;
