-- Records a claimed task's failure, if the caller still holds its claim: the task, with its failure history, is due
-- again after a delay, or, when ARGV[4] is negative, moves to the dead-letter list.
-- KEYS: due, claimed, tasks, claims, dead. ARGV: id, claim token, task JSON, delay in ms (negative: dead).
-- Returns 0 if the claim was lost, 1 if the task is due again, 2 if it is a dead letter.
if redis.call('HGET', KEYS[4], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
local delay = tonumber(ARGV[4])
if delay < 0 then
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('RPUSH', KEYS[5], ARGV[3])
  return 2
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], now + delay, ARGV[1])
return 1
