-- Cycle rule (src/warehouse/state-types.ts), as the CTE `cycle_runs` (src/warehouse/run-sql.ts):
-- a full cycle starts with the first full run after the last completed full run and ends with
-- the full run that completes. These are the full runs of the cycle that the time `upto` (the
-- CTE `cycle_end`) ends or falls in: started at or before it, after the last full run that
-- completed before it. `upto` 'infinity': the cycle open now (none when no full run started
-- after the last completed one).
SELECT f.* FROM full_runs f, cycle_end e
WHERE f.started_at <= e.upto
  AND f.started_at > coalesce(
    (SELECT max(started_at) FROM full_runs WHERE done AND started_at < e.upto),
    '-infinity'::TIMESTAMPTZ)
