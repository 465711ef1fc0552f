-- Runs whose process ended without closing them (SIGKILL, out of memory, a machine lost),
-- as the next sync found them. Before, such a run was closed 'interrupted', which `fragsync
-- runs` showed as exit 130, an interrupt nobody sent; its status is now 'died', its exit code
-- unknown (no process saw it), and this row says why and what is known of its end.
CREATE TABLE sync_run_deaths (
  run_id VARCHAR PRIMARY KEY,
  found_by VARCHAR NOT NULL,
  found_at TIMESTAMPTZ NOT NULL,
  last_call_at TIMESTAMPTZ,
  reason VARCHAR NOT NULL
);
