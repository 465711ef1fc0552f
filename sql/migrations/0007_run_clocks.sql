-- The service's clock as each run saw it: its Date header minus this machine's clock (ms), as
-- the governor measured it from the run's responses. Fetch times (sync_items.fetched_*) are
-- this machine's clock; a time stored during a run is on the service's clock that time plus
-- the offset of the latest run started at or before it. So an age is judged on the service's
-- clock as it was when each item was fetched, and `plan`, which sends no request, judges
-- "now" by the offset last seen. Runs of older versions, and runs that ended without an
-- answered call or were killed before finishing, have no row.
CREATE TABLE sync_run_clocks (
  run_id VARCHAR PRIMARY KEY,
  clock_offset_ms BIGINT NOT NULL,
  recorded_at TIMESTAMPTZ NOT NULL
);
