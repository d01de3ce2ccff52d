-- Reads ids in buckets of Tapjoy's Redis de-dup design without changing anything.
-- KEYS: the buckets to look in, newest first; ARGV[1]: the ids, 16 bytes each, one after the other.
-- Returns, for each id, the owner it is held under ('' for none), or nil when no bucket holds it.
local packed = ARGV[1]
local n = #packed / 16
local ids, out = {}, {}
for i = 1, n do
  ids[i] = string.sub(packed, 16 * i - 15, 16 * i)
  out[i] = false
end
for k = 1, #KEYS do
  local missing, where = {}, {}
  for i = 1, n do
    if not out[i] then
      missing[#missing + 1] = ids[i]
      where[#where + 1] = i
    end
  end
  if #missing == 0 then break end
  local held = redis.call('HMGET', KEYS[k], unpack(missing))
  for j = 1, #missing do
    if held[j] then out[where[j]] = held[j] end
  end
end
return out
