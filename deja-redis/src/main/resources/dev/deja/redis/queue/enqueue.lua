-- Adds a task to the retry queue unless one with its id is already waiting or claimed.
-- KEYS: due (sorted set id -> due ms), tasks (hash id -> task JSON)
-- ARGV: id, task JSON, delay in ms from Redis's clock. Returns 1 if added, 0 if the id is taken.
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
return 1
