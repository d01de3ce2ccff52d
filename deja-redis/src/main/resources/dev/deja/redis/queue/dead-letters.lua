-- The first ARGV[1] dead letters. KEYS: dead.
return redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
