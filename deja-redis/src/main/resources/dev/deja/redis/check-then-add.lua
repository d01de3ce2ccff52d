-- Records ids in one bucket of Tapjoy's Redis de-dup design and answers only the duplicates and retries.
-- KEYS[1]: the bucket written (a hash: id -> owner); KEYS[2..]: earlier buckets of the same slice, read only.
-- ARGV[1]: when KEYS[1] expires (PEXPIREAT, ms); ARGV[2 .. n+1]: the n ids; ARGV[n+2 .. 2n+1]: their owners, in the
-- same order ('' for none).
-- Returns 2*i for key i (0-based) held under another owner (a duplicate), 2*i+1 held under the same (a retry).
local n = (#ARGV - 1) / 2
local held = redis.call('HMGET', KEYS[1], unpack(ARGV, 2, n + 1))
for k = 2, #KEYS do
  local missing, where, m = {}, {}, 0
  for i = 1, n do
    if not held[i] then
      m = m + 1
      missing[m] = ARGV[1 + i]
      where[m] = i
    end
  end
  if m == 0 then break end
  local older = redis.call('HMGET', KEYS[k], unpack(missing))
  for j = 1, m do
    if older[j] then held[where[j]] = older[j] end
  end
end
local out, add, o, a = {}, {}, 0, 0
for i = 1, n do
  local prior = held[i]
  if prior then
    local owner = ARGV[n + 1 + i]
    o = o + 1
    if owner ~= '' and prior == owner then out[o] = 2 * i - 1 else out[o] = 2 * i - 2 end
  else
    add[a + 1] = ARGV[1 + i]
    add[a + 2] = ARGV[n + 1 + i]
    a = a + 2
  end
end
if a > 0 then
  if redis.call('HSET', KEYS[1], unpack(add)) * 2 < a then
    -- Some id came twice in this call (HSET counted it once and kept its last owner): its first occurrence holds
    -- it, under that occurrence's owner, and the later ones are answered against that owner.
    local first, again, g = {}, {}, 0
    for i = 1, n do
      if not held[i] then
        local id, owner = ARGV[1 + i], ARGV[n + 1 + i]
        local prior = first[id]
        if prior then
          o = o + 1
          if owner ~= '' and prior == owner then out[o] = 2 * i - 1 else out[o] = 2 * i - 2 end
        else
          first[id] = owner
          again[g + 1] = id
          again[g + 2] = owner
          g = g + 2
        end
      end
    end
    redis.call('HSET', KEYS[1], unpack(again))
  end
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return out
