-- lib.lua: helpers prepended to every governor script at load time (not a script itself).
-- Every script gets the same KEYS and the first three ARGV:
--   KEYS[1] <prefix>:gov:state    hash: limit, remaining, resetAt (service ms), pauseUntil
--                                 (service ms), pauseJitter (ms), offset (service - local ms of
--                                 the last process that measured one), runId, probe (the ticket
--                                 id of the recheck in flight during a pause), probeAt (service
--                                 ms the last recheck was admitted)
--   KEYS[2] <prefix>:gov:inflight zset: ticket id scored by its expiry (service ms)
--   KEYS[3] <prefix>:gov:tickets  hash: ticket id -> cents held
--   KEYS[4] <prefix>:gov:expired  zset: tickets charged at expiry (service ms), kept one day so
--                                 a late settle does not charge them twice
--   ARGV[1] prefix (the day and run keys are derived from it: <prefix>:gov:day:<YYYY-MM-DD>,
--           <prefix>:gov:run:<runId>, a hash: cents, calls, and halted ('payment_required' or
--           'unauthorized' once a call of the run was answered 402 or 401: settle.lua, admit.lua);
--           and <prefix>:gov:ticket-runs, a hash: ticket id -> the run it was admitted in, while
--           the ticket is in flight (TICKET_RUNS))
--   ARGV[2] now, the caller's local epoch ms (passed from JS so tests control it; never redis TIME)
--   ARGV[3] the caller's own clock offset (service - local ms), '' until it has measured one:
--           processes on different hosts have different clocks, so each converts with its own
--           (OFF below); one that has not seen a Date header yet uses the last one measured.
-- Numbers are Lua doubles: epoch ms are exact up to 2^53.

local DAY_MS = 86400000
local PAUSE_WITHOUT_RESET_MS = 60000
local DAY_KEY_TTL_MS = 3 * DAY_MS
local RUN_KEY_TTL_MS = 30 * DAY_MS

local PREFIX = ARGV[1]
local NOW = tonumber(ARGV[2])
local CALLER_OFFSET = ARGV[3] ~= '' and tonumber(ARGV[3]) or nil
local S = {}
-- The caller's offset (service - local ms); set by load_state.
local OFF = 0

local function num(v)
  if v == nil or v == false or v == '' then return nil end
  return tonumber(v)
end

local function str(n)
  if n == nil then return '' end
  return string.format('%.0f', n)
end

local function load_state()
  local raw = redis.call('HGETALL', KEYS[1])
  local t = {}
  for i = 1, #raw, 2 do t[raw[i]] = raw[i + 1] end
  S.limit = num(t.limit)
  S.remaining = num(t.remaining)
  S.resetAt = num(t.resetAt)
  S.pauseUntil = num(t.pauseUntil)
  S.pauseJitter = num(t.pauseJitter) or 0
  S.offset = num(t.offset) or 0
  S.runId = t.runId or ''
  S.probe = t.probe
  S.probeAt = num(t.probeAt)
  OFF = CALLER_OFFSET or S.offset
end

local function save_state()
  local fields = { 'limit', 'remaining', 'resetAt', 'pauseUntil', 'pauseJitter', 'offset', 'probeAt' }
  for _, f in ipairs(fields) do
    if S[f] == nil then redis.call('HDEL', KEYS[1], f) else redis.call('HSET', KEYS[1], f, str(S[f])) end
  end
  redis.call('HSET', KEYS[1], 'runId', S.runId)
  if S.probe == nil then redis.call('HDEL', KEYS[1], 'probe') else redis.call('HSET', KEYS[1], 'probe', S.probe) end
end

-- Civil date of a UTC day number (H. Hinnant's days-to-civil algorithm).
local function utc_day(ms)
  local z = math.floor(ms / DAY_MS) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return string.format('%04d-%02d-%02d', y, m, d)
end

local function day_key(service_ms) return PREFIX .. ':gov:day:' .. utc_day(service_ms) end
-- The current run's key, or run_id's: a ticket is charged to the run that was current when it was
-- admitted (admit.lua returns it, settle.lua is given it back), not to one started since.
local function run_key(run_id)
  if run_id == nil or run_id == '' then run_id = S.runId end
  return PREFIX .. ':gov:run:' .. run_id
end

-- Each ticket in flight's run (admit.lua), so that its charge at expiry goes to that run.
local TICKET_RUNS = PREFIX .. ':gov:ticket-runs'

local function charge(cents, service_ms, run_id)
  local dk = day_key(service_ms)
  redis.call('INCRBY', dk, cents)
  redis.call('PEXPIRE', dk, DAY_KEY_TTL_MS)
  local rk = run_key(run_id)
  redis.call('HINCRBY', rk, 'cents', cents)
  redis.call('HINCRBY', rk, 'calls', 1)
  redis.call('PEXPIRE', rk, RUN_KEY_TTL_MS)
end

local function in_flight()
  local cents = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[3])) do cents = cents + tonumber(v) end
  return redis.call('ZCARD', KEYS[2]), cents
end

local function reserve_for(reserve_calls, reserve_percent)
  if S.limit == nil then return reserve_calls end
  return math.max(reserve_calls, math.ceil(S.limit * reserve_percent / 100))
end

local function local_pause_end()
  if S.pauseUntil == nil then return nil end
  return S.pauseUntil - OFF + S.pauseJitter
end

-- Expire tickets of dead processes, end a pause whose time has come, forget the remaining of
-- a window that has reset.
local function housekeeping()
  local service_now = NOW + OFF
  local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', str(service_now))
  for _, id in ipairs(dead) do
    local cents = tonumber(redis.call('HGET', KEYS[3], id) or '0')
    -- A ticket admitted before runs were recorded per ticket has none: the current run's.
    local run_id = redis.call('HGET', TICKET_RUNS, id) or ''
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', TICKET_RUNS, id)
    redis.call('ZREM', KEYS[2], id)
    -- The dead process may have sent the request: count it as spent, never exceed a cap. Its
    -- run's, as a late settle would (settle.lua), not a run started since, which sent nothing.
    charge(cents, service_now, run_id)
    redis.call('ZADD', KEYS[4], str(service_now), id)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. str(service_now - DAY_MS))
  local pause_end = local_pause_end()
  if pause_end ~= nil and NOW >= pause_end then
    S.pauseUntil = nil
    S.pauseJitter = nil
  end
  if S.resetAt ~= nil and service_now >= S.resetAt then S.remaining = nil end
end

-- Pause until a service time; an existing pause that ends as late or later is kept, jitter and all.
local function start_pause(until_service_ms, jitter_ms)
  if S.pauseUntil ~= nil and S.pauseUntil >= until_service_ms then return false end
  S.pauseUntil = until_service_ms
  S.pauseJitter = jitter_ms
  return true
end

-- The current window's reset, or a 60 s stand-in window when none is known.
local function pause_target(service_now)
  if S.resetAt ~= nil and S.resetAt > service_now then return S.resetAt end
  S.resetAt = service_now + PAUSE_WITHOUT_RESET_MS
  return S.resetAt
end
