-- The public contract (docs/warehouse-contract.md). Columns starting with "_" are lineage
-- (the run and time that last wrote the row); they are never exported to Parquet.
CREATE TABLE fragrances (
  id VARCHAR PRIMARY KEY,
  name VARCHAR,
  brand VARCHAR,
  brand_slug VARCHAR,
  perfumer VARCHAR,
  perfumer_slug VARCHAR,
  year INTEGER,
  score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE fragrance_notes (
  fragrance_id VARCHAR,
  layer VARCHAR CHECK (layer IN ('top', 'middle', 'base')),
  position INTEGER,
  note VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (fragrance_id, layer, position)
);
CREATE TABLE fragrance_accords (
  fragrance_id VARCHAR,
  position INTEGER,
  accord VARCHAR,
  strength DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (fragrance_id, position)
);
CREATE TABLE brands (
  slug VARCHAR PRIMARY KEY,
  name VARCHAR,
  country VARCHAR,
  description VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE brand_fragrances (
  brand_slug VARCHAR,
  fragrance_id VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (brand_slug, fragrance_id)
);
CREATE TABLE perfumers (
  slug VARCHAR PRIMARY KEY,
  name VARCHAR,
  nationality VARCHAR,
  bio VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE notes (
  slug VARCHAR PRIMARY KEY,
  name VARCHAR,
  family VARCHAR,
  description VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE accords (
  slug VARCHAR PRIMARY KEY,
  name VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE charts (
  slug VARCHAR PRIMARY KEY,
  title VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE chart_entries (
  chart_slug VARCHAR,
  snapshot_date DATE,
  rank INTEGER,
  fragrance_id VARCHAR,
  name VARCHAR,
  brand VARCHAR,
  score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (chart_slug, snapshot_date, rank)
);
CREATE TABLE reviews (
  fragrance_id VARCHAR NOT NULL,
  date DATE,
  rating DOUBLE,
  text VARCHAR,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE similar_fragrances (
  fragrance_id VARCHAR,
  similar_id VARCHAR,
  rank INTEGER,
  similarity_score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (fragrance_id, similar_id)
);
CREATE TABLE wearing_stats (
  fragrance_id VARCHAR PRIMARY KEY,
  spring DOUBLE,
  summer DOUBLE,
  fall DOUBLE,
  winter DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ
);
CREATE TABLE wearing_moods (
  fragrance_id VARCHAR,
  label VARCHAR,
  rank INTEGER,
  score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (fragrance_id, label)
);
CREATE TABLE wearing_occasions (
  fragrance_id VARCHAR,
  label VARCHAR,
  rank INTEGER,
  score DOUBLE,
  _run_id VARCHAR,
  _loaded_at TIMESTAMPTZ,
  PRIMARY KEY (fragrance_id, label)
);
CREATE TABLE sync_runs (
  run_id VARCHAR PRIMARY KEY,
  started_at TIMESTAMPTZ,
  finished_at TIMESTAMPTZ,
  status VARCHAR,
  calls INTEGER,
  cost_cents INTEGER
);
CREATE TABLE api_calls (
  run_id VARCHAR,
  "at" TIMESTAMPTZ,
  method VARCHAR,
  endpoint VARCHAR,
  status INTEGER,
  cost_cents INTEGER,
  quota_remaining INTEGER,
  _call_key VARCHAR,
  _loaded_at TIMESTAMPTZ
);
