-- Erases ids from buckets of Tapjoy's Redis de-dup design when they are held under the caller's owner.
-- KEYS: the buckets to look in; ARGV: one (id, owner) pair per key; owner '' erases whoever holds it.
-- Returns the 0-based indexes of the keys erased.
local out = {}
for i = 1, #ARGV / 2 do
  local id, owner = ARGV[2 * i - 1], ARGV[2 * i]
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
