-- How many tasks are waiting (due or not yet), claimed and dead. KEYS: due, claimed, dead.
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('LLEN', KEYS[3])}
