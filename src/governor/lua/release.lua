-- release.lua: drop a ticket whose request was never sent, without spending its cents.
-- KEYS[1..4], ARGV[1..3] prefix, now, offset: see lib.lua.  ARGV[4] ticket id.
-- A ticket already charged at expiry stays charged (it cannot be told apart from a sent one).
-- Returns 1 when the ticket was in flight, else 0.
load_state()
housekeeping()
local removed = redis.call('HDEL', KEYS[3], ARGV[4])
redis.call('HDEL', TICKET_RUNS, ARGV[4])
redis.call('ZREM', KEYS[2], ARGV[4])
save_state()
return removed
