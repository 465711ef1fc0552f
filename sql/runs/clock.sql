-- The run's service clock offset (ms), as its responses showed it (sql/migrations/0007).
INSERT INTO sync_run_clocks VALUES ($1, $2, $3::TIMESTAMPTZ)
ON CONFLICT (run_id) DO UPDATE SET clock_offset_ms = excluded.clock_offset_ms, recorded_at = excluded.recorded_at;
