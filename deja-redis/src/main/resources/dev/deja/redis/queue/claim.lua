-- Claims due tasks atomically, by Redis's clock: first every claim whose visibility timeout has passed is made due
-- again (its worker is presumed dead), then up to ARGV[2] due tasks move to the claimed set under claim token ARGV[3].
-- KEYS: due (sorted set id -> due ms), claimed (sorted set id -> visibility deadline ms), tasks (hash id -> JSON),
--       claims (hash id -> claim token)
-- ARGV: visibility timeout in ms, max tasks, claim token. Returns task JSON, oldest due first.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZADD', KEYS[1], now, id)
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), id)
  redis.call('HSET', KEYS[4], id, ARGV[3])
  out[#out + 1] = redis.call('HGET', KEYS[3], id)
end
return out
