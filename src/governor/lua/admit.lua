-- admit.lua: reserve one quota unit and the endpoint's cents, or refuse, atomically for all
-- processes sharing the prefix. KEYS[1..4], ARGV[1..3] prefix, now, offset: see lib.lua.
--   ARGV[4] cost (cents)           ARGV[5] ticket id (random, from JS)
--   ARGV[6] ticket TTL (ms)        ARGV[7] reserveCalls       ARGV[8] reservePercent
--   ARGV[9] maxCentsPerRun ('' = none)   ARGV[10] maxCentsPerDay ('' = none)
--   ARGV[11] jitter (ms) to use if this call begins a pause
--   ARGV[12] recheck interval (ms), '' for an ordinary admit: admit one call that re-reads the
--            quota during a pause (governor/types.ts, recheck): refused 'busy' when no pause is in
--            force, 'paused' (until the next one is due) while one is in flight or too recent
-- Returns {'ok', runId} (the run the ticket belongs to, for settle.lua) or {'refused', reason, untilLocalMs|'', spentCents, inFlightCents, capCents|'',
--   inFlight, remaining|'', reserve, pauseStarted '1'|'0'}; reason 'payment_required' or
--   'unauthorized' once the run is halted (the run key's 'halted' field, lib.lua).
local cost = tonumber(ARGV[4])
local ticket_id = ARGV[5]
local ttl_ms = tonumber(ARGV[6])
local reserve_calls = tonumber(ARGV[7])
local reserve_percent = tonumber(ARGV[8])
local max_run = num(ARGV[9])
local max_day = num(ARGV[10])
local jitter_ms = tonumber(ARGV[11])
local recheck_ms = num(ARGV[12])

load_state()
housekeeping()
local service_now = NOW + OFF
local reserve = reserve_for(reserve_calls, reserve_percent)
local count, cents = in_flight()

local function refuse(reason, until_ms, spent, cap, started)
  save_state()
  return { 'refused', reason, str(until_ms), str(spent), str(cents), str(cap), str(count),
    str(S.remaining), str(reserve), started and '1' or '0' }
end

local run = redis.call('HMGET', run_key(), 'cents', 'halted')
local run_cents = tonumber(run[1] or '0')
-- A 402 or a 401 settled in this run (settle.lua): none of its requests leaves any more, in
-- any process; checked here, in the round trip every request makes anyway.
if run[2] then return refuse(run[2], nil, run_cents, nil, false) end
if max_run ~= nil and run_cents + cents + cost > max_run then
  return refuse('run_budget', nil, run_cents, max_run, false)
end
local day_cents = tonumber(redis.call('GET', day_key(service_now)) or '0')
if max_day ~= nil and day_cents + cents + cost > max_day then
  local next_midnight = (math.floor(service_now / DAY_MS) + 1) * DAY_MS
  return refuse('day_budget', next_midnight - OFF, day_cents, max_day, false)
end
if recheck_ms ~= nil then
  if S.pauseUntil == nil then return refuse('busy', nil, run_cents, nil, false) end
  local due = math.max((S.probeAt or -recheck_ms) + recheck_ms, service_now)
  local in_flight_probe = S.probe ~= nil and redis.call('ZSCORE', KEYS[2], S.probe)
  if in_flight_probe or due > service_now then
    return refuse('paused', math.min(due - OFF, local_pause_end()), run_cents, nil, false)
  end
  S.probe = ticket_id
  S.probeAt = service_now
elseif S.pauseUntil ~= nil then
  return refuse('paused', local_pause_end(), run_cents, nil, false)
end
if recheck_ms == nil and S.remaining ~= nil and S.remaining <= reserve then
  local started = start_pause(pause_target(service_now), jitter_ms)
  return refuse('paused', local_pause_end(), run_cents, nil, started)
end
local headroom
if recheck_ms ~= nil then
  headroom = 1
elseif S.remaining == nil then
  -- Unknown remaining (first call of a window): one probe at a time learns it.
  headroom = 1 - count
else
  headroom = S.remaining - count - reserve
end
if headroom <= 0 then
  return refuse('busy', nil, run_cents, nil, false)
end

redis.call('ZADD', KEYS[2], str(service_now + ttl_ms), ticket_id)
redis.call('HSET', KEYS[3], ticket_id, str(cost))
redis.call('HSET', TICKET_RUNS, ticket_id, S.runId)
save_state()
return { 'ok', S.runId }
