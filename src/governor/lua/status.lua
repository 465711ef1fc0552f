-- status.lua: housekeeping (expired tickets, ended pause, reset window), then the state.
-- KEYS[1..4], ARGV[1..3] prefix, now, offset: see lib.lua.
-- Returns {limit, remaining, resetAt (service ms), inFlight, inFlightCents, pauseEndLocalMs,
--   centsToday, centsThisRun, callsThisRun, offsetMs (the caller's)} ('' for unknown).
load_state()
housekeeping()
save_state()
local count, cents = in_flight()
local day_cents = tonumber(redis.call('GET', day_key(NOW + OFF)) or '0')
local run = redis.call('HMGET', run_key(), 'cents', 'calls')
return { str(S.limit), str(S.remaining), str(S.resetAt), str(count), str(cents), str(local_pause_end()),
  str(day_cents), str(num(run[1]) or 0), str(num(run[2]) or 0), str(OFF) }
