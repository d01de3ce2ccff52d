-- Reads ids in buckets of Tapjoy's Redis de-dup design without changing anything.
-- KEYS: the buckets to look in, newest first; ARGV: the ids.
-- Returns, for each id, the owner it is held under ('' for none), or nil when no bucket holds it.
local n = #ARGV
local out = redis.call('HMGET', KEYS[1], unpack(ARGV))
for k = 2, #KEYS do
  local missing, where, m = {}, {}, 0
  for i = 1, n do
    if not out[i] then
      m = m + 1
      missing[m] = ARGV[i]
      where[m] = i
    end
  end
  if m == 0 then break end
  local held = redis.call('HMGET', KEYS[k], unpack(missing))
  for j = 1, m do
    if held[j] then out[where[j]] = held[j] end
  end
end
return out
