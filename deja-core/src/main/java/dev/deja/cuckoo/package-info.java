/**
 * The {@code cuckoo} store ({@link dev.deja.cuckoo.CuckooFilter}): a compact seen-set that may answer "seen" for a
 * new key, with a small bounded probability, never "new" for a key it holds, and that can forget a key, which a
 * Bloom filter cannot. It grows by adding tables, as RedisBloom's cuckoo filters do.
 */
package dev.deja.cuckoo;
