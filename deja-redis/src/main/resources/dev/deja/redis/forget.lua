-- Erases ids from buckets of Tapjoy's Redis de-dup design when they are held under the caller's owner.
-- KEYS: the buckets to look in; ARGV[1]: the ids, 16 bytes each; ARGV[2]: their owners, each a length byte then
-- that many bytes (length 0: erase whoever holds it).
-- Returns the 0-based indexes of the keys erased.
local packed, packedOwners = ARGV[1], ARGV[2]
local out = {}
local at = 1
for i = 1, #packed / 16 do
  local id = string.sub(packed, 16 * i - 15, 16 * i)
  local length = string.byte(packedOwners, at)
  local owner = string.sub(packedOwners, at + 1, at + length)
  at = at + 1 + length
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
