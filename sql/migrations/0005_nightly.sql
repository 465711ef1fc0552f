-- What a run set out to do: 'full' (everything again, as the first sync does) or 'nightly'
-- (what the walks say changed and what the freshness policy says is due). Beside sync_runs,
-- whose columns are the contract's; runs of older versions have no row here (all were full).
CREATE TABLE sync_run_modes (
  run_id VARCHAR PRIMARY KEY,
  mode VARCHAR NOT NULL CHECK (mode IN ('full', 'nightly'))
);

-- The freshness policy the last sync ran with (config freshness.*), one row per dataset, so
-- the `freshness` view can say what is older than its policy without reading the config.
CREATE TABLE freshness_policy (
  entity VARCHAR NOT NULL,
  dataset VARCHAR NOT NULL,
  max_age_hours DOUBLE NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (entity, dataset)
);
