-- Removes a claimed task for good, if the caller still holds its claim.
-- KEYS: claimed, tasks, claims. ARGV: id, claim token. Returns 1 if completed, 0 if the claim was lost.
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
