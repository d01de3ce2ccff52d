-- Reads ids in buckets of Tapjoy's Redis de-dup design without changing anything.
-- KEYS: the buckets to look in, newest first; ARGV: the ids.
-- Returns, for each id, the owner it is held under ('' for none), or nil when no bucket holds it.
local out = {}
for i = 1, #ARGV do out[i] = false end
for k = 1, #KEYS do
  local missing, at = {}, {}
  for i = 1, #ARGV do
    if not out[i] then
      missing[#missing + 1] = ARGV[i]
      at[#at + 1] = i
    end
  end
  if #missing == 0 then break end
  local held = redis.call('HMGET', KEYS[k], unpack(missing))
  for j = 1, #missing do
    if held[j] then out[at[j]] = held[j] end
  end
end
return out
