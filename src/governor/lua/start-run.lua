-- start-run.lua: make runId the current run; a run that was not current starts at 0 cents and
-- 0 calls. Starting the current run again changes nothing, so worker processes joining a run
-- never wipe its spend. KEYS[1..4], ARGV[1..3] prefix, now, offset: see lib.lua.  ARGV[4] run id.
-- Returns 1 when the run was (re)started at 0, else 0.
load_state()
if S.runId == ARGV[4] then return 0 end
S.runId = ARGV[4]
redis.call('DEL', run_key())
save_state()
return 1
