-- lease-hold.lua: take or renew a run's lease on the queue prefix (queue/lease.ts).
-- KEYS[1] the lease key (<prefix>:fragsync:lease): the holding run's id, expiring by itself.
-- ARGV[1] run id, ARGV[2] lease length in ms.
-- Held by this run, or by none (never taken, expired, released): (re)set for ARGV[2] ms and
-- return ''. Held by another run: unchanged, return that run's id (it renews it: it lives).
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return holder
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
return ''
