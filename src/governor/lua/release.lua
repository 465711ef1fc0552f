-- release.lua: drop a ticket whose request was never sent, without spending its cents.
-- KEYS[1..4], ARGV[1] prefix, ARGV[2] now: see lib.lua.  ARGV[3] ticket id.
-- A ticket already charged at expiry stays charged (it cannot be told apart from a sent one).
-- Returns 1 when the ticket was in flight, else 0.
load_state()
housekeeping()
local removed = redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[3])
save_state()
return removed
