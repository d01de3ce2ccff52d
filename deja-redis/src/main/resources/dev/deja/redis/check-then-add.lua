-- Records ids in one bucket of Tapjoy's Redis de-dup design and answers only the duplicates and retries.
-- KEYS[1]: the bucket written (a hash: id -> owner); KEYS[2..]: earlier buckets of the same slice, read only.
-- ARGV[1]: when KEYS[1] expires (PEXPIREAT, ms); ARGV[2]: the ids, 16 bytes each, one after the other; ARGV[3]: their
-- owners, each a length byte then that many bytes (length 0: no owner).
-- Returns 2*i for key i (0-based) held under another owner (a duplicate), 2*i+1 held under the same (a retry).
local packed, packedOwners = ARGV[2], ARGV[3]
local n = #packed / 16
local ids, owners = {}, {}
local at = 1
for i = 1, n do
  ids[i] = string.sub(packed, 16 * i - 15, 16 * i)
  local length = string.byte(packedOwners, at)
  owners[i] = string.sub(packedOwners, at + 1, at + length)
  at = at + 1 + length
end
local held = redis.call('HMGET', KEYS[1], unpack(ids))
for k = 2, #KEYS do
  local missing, where = {}, {}
  for i = 1, n do
    if not held[i] then
      missing[#missing + 1] = ids[i]
      where[#where + 1] = i
    end
  end
  if #missing == 0 then break end
  local older = redis.call('HMGET', KEYS[k], unpack(missing))
  for j = 1, #missing do
    if older[j] then held[where[j]] = older[j] end
  end
end
local out, add, batch = {}, {}, {}
for i = 1, n do
  local id, owner = ids[i], owners[i]
  local prior = held[i] or batch[id]
  if prior then
    if owner ~= '' and prior == owner then
      out[#out + 1] = 2 * (i - 1) + 1
    else
      out[#out + 1] = 2 * (i - 1)
    end
  else
    batch[id] = owner
    add[#add + 1] = id
    add[#add + 1] = owner
  end
end
if #add > 0 then
  redis.call('HSET', KEYS[1], unpack(add))
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return out
