-- Erases ids from buckets of Tapjoy's Redis de-dup design when they are held under the caller's owner.
-- KEYS: the buckets to look in; ARGV[1 .. n]: the n ids; ARGV[n+1 .. 2n]: their owners, in the same order ('':
-- erase whoever holds it).
-- Returns the 0-based indexes of the keys erased.
local n = #ARGV / 2
local out = {}
for i = 1, n do
  local id, owner = ARGV[i], ARGV[n + i]
  local erased = false
  for k = 1, #KEYS do
    local held = redis.call('HGET', KEYS[k], id)
    if held and (owner == '' or held == owner) then
      redis.call('HDEL', KEYS[k], id)
      erased = true
    end
  end
  if erased then out[#out + 1] = i - 1 end
end
return out
