-- seed.lua: raise a day's spent cents to the warehouse ledger's figure, never lower it, so a
-- restart (or a flushed Redis) never forgets what the day already cost.
-- KEYS[1..4], ARGV[1..3] prefix, now, offset: see lib.lua.  ARGV[4] cents  ARGV[5] day (YYYY-MM-DD).
-- Returns the day's cents after seeding.
-- A caller's offset (the one the last run recorded, until a response told one) stands for the
-- shared clock offset where no response has set it yet: the day cap's first calls count on
-- the service's day.
if ARGV[3] ~= '' then redis.call('HSETNX', KEYS[1], 'offset', ARGV[3]) end
local cents = tonumber(ARGV[4])
local key = PREFIX .. ':gov:day:' .. ARGV[5]
local stored = tonumber(redis.call('GET', key) or '0')
if cents > stored then
  redis.call('SET', key, str(cents), 'PX', DAY_KEY_TTL_MS)
  return str(cents)
end
return str(stored)
