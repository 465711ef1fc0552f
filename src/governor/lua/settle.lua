-- settle.lua: a call came back (or failed): stop holding its ticket, count its cents as spent
-- and reconcile the quota from the response. KEYS[1..4], ARGV[1..3] prefix, now, offset: see lib.lua.
--   ARGV[4] ticket id   ARGV[5] cost (cents)   ARGV[6] HTTP status (0: no response)
--   ARGV[7] X-RateLimit-Limit   ARGV[8] X-RateLimit-Remaining   ARGV[9] reset (service epoch ms)
--   ARGV[10] Date header (epoch ms)   ('' for any header that was absent)
--   ARGV[11] reserveCalls   ARGV[12] reservePercent   ARGV[13] jitter (ms) if a pause begins
--   ARGV[14] the ticket's run (admit.lua's answer; '' for the current run)
-- Rules: remaining is the lowest value seen in the window named by its reset; a later reset
-- starts a new window; a response from a window already over is ignored. A 429 or remaining at
-- the reserve pauses everyone until the reset (60 s when no reset is known). A 402 or a 401
-- halts the ticket's run: the run key's 'halted' field (lib.lua).
-- Returns {pauseStarted '1'|'0'|'ended' (a recheck ended it), pauseEndLocalMs|'', remaining|'',
--   limit|''}.
local ticket_id = ARGV[4]
local cost = tonumber(ARGV[5])
local status = tonumber(ARGV[6])
local limit = num(ARGV[7])
local remaining = num(ARGV[8])
local reset = num(ARGV[9])
local server_date = num(ARGV[10])
local reserve_calls = tonumber(ARGV[11])
local reserve_percent = tonumber(ARGV[12])
local jitter_ms = tonumber(ARGV[13])
-- A late answer of a run since replaced (a worker's request in flight as the sync ended, then a
-- new sync) is that run's: it must neither halt nor be charged to the new one.
local ticket_run = ARGV[14] or ''

load_state()
-- policy.ts offsetFrom: a Date whose reset is not within a day after it is from another clock.
local DATE_RESET_SLACK_MS = 60000
if server_date ~= nil and (reset == nil or
    (reset - server_date > -DATE_RESET_SLACK_MS and reset - server_date <= DAY_MS + DATE_RESET_SLACK_MS)) then
  -- The shared estimate, for processes that have not measured their own yet.
  S.offset = server_date - NOW
  OFF = CALLER_OFFSET or S.offset
end
housekeeping()
local service_now = NOW + OFF

local was_in_flight = redis.call('HDEL', KEYS[3], ticket_id) == 1
redis.call('HDEL', TICKET_RUNS, ticket_id)
redis.call('ZREM', KEYS[2], ticket_id)
local charged_at_expiry = (not was_in_flight) and redis.call('ZREM', KEYS[4], ticket_id) == 1
-- Whether failed calls are billed is unknown: every attempt counts.
if not charged_at_expiry then charge(cost, service_now, ticket_run) end
-- A 402 or a 401 halts the run in every process: admit.lua refuses its requests from now on.
-- A copy of domain/calls.ts HALTING (which every TypeScript reader of the rule uses): change
-- the two together. In the run's own key, so the next run (after a top-up) starts clear.
if status == 402 or status == 401 then
  local rk = run_key(ticket_run)
  redis.call('HSETNX', rk, 'halted', status == 402 and 'payment_required' or 'unauthorized')
  redis.call('PEXPIRE', rk, RUN_KEY_TTL_MS)
end

if limit ~= nil then S.limit = limit end
-- A recheck answered (see admit.lua): its remaining is news (the quota may have been raised),
-- not one more reading to take the lowest of; more than the reserve ends the pause.
local recheck = S.probe == ticket_id
if recheck then S.probe = nil end
if recheck and status >= 200 and status < 300 and (reset == nil or reset > service_now) then
  if reset ~= nil and (S.resetAt == nil or reset >= S.resetAt) then S.resetAt = reset end
  S.remaining = remaining
  if remaining == nil or remaining > reserve_for(reserve_calls, reserve_percent) then
    S.pauseUntil = nil
    S.pauseJitter = nil
    save_state()
    return { 'ended', '', str(S.remaining), str(S.limit) }
  end
end
if reset ~= nil and reset > service_now then
  if S.resetAt == nil or reset > S.resetAt then
    S.resetAt = reset
    S.remaining = remaining
  elseif reset == S.resetAt and remaining ~= nil then
    S.remaining = math.min(S.remaining or remaining, remaining)
  end
elseif reset == nil and remaining ~= nil then
  S.remaining = math.min(S.remaining or remaining, remaining)
end

local started = false
if status == 429 then
  local target
  if reset ~= nil and reset > service_now then target = reset else target = pause_target(service_now) end
  if target == S.resetAt then S.remaining = 0 end
  started = start_pause(target, jitter_ms)
elseif S.remaining ~= nil and S.remaining <= reserve_for(reserve_calls, reserve_percent) then
  started = start_pause(pause_target(service_now), jitter_ms)
end

save_state()
return { started and '1' or '0', str(local_pause_end()), str(S.remaining), str(S.limit) }
