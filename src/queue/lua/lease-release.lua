-- lease-release.lua: a run that ends gives its lease up (queue/lease.ts).
-- KEYS[1] the lease key (<prefix>:fragsync:lease). ARGV[1] the run id.
-- Deleted only if this run holds it (a later run may hold it already). Returns 1 if deleted.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
