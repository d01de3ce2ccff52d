/**
 * The seen-set on Redis ({@code dev.deja.redis}: Tapjoy's design of owners, binary ids in per-bucket hashes, one Lua
 * call per bucket, sharding with a cut-over, Redis Cluster by hash tag) and the delayed retry queue
 * ({@code dev.deja.redis.queue}); docs/DESIGN.md section 10. The connections and scripts ({@code dev.deja.redis.node})
 * are not exported.
 */
// Lettuce ships no module descriptor (its manifest names its module) and its RedisURI is part of this API
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.deja.redis {
    requires transitive dev.deja.core;
    requires transitive lettuce.core;
    requires com.fasterxml.jackson.databind;
    requires io.netty.buffer; // a script call's arguments are written into Lettuce's output buffer at once
    requires io.netty.common; // Lettuce's shutdown returns a Netty future
    requires org.slf4j;

    exports dev.deja.redis;
    exports dev.deja.redis.queue;
}
