-- Moves one dead letter back to the queue, due now, unless a task of its id is queued again meanwhile.
-- KEYS: due, tasks, dead. ARGV: the dead letter's JSON as stored, id, the JSON to queue.
-- Returns 1 if requeued, 0 if that dead letter is gone or its id is taken.
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 0 end
if redis.call('LREM', KEYS[3], 1, ARGV[1]) == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[1], now, ARGV[2])
return 1
