/**
 * The seen-set on Redis: {@link dev.deja.redis.RedisSeenSet} keeps ids in Redis hashes grouped by time bucket and
 * slice (Tapjoy's Redis de-dup design), with owners, on one instance, on several by the key's hash (with a previous
 * and a current configuration around a cut-over), or on a Redis Cluster.
 */
package dev.deja.redis;
