/**
 * How the Redis stores reach Redis: {@link dev.deja.redis.node.Node}, one standalone instance or a Redis Cluster over
 * Lettuce, opened by {@link dev.deja.redis.node.Clients} with a timeout on every command, and
 * {@link dev.deja.redis.node.Script}, a Lua script called by its SHA1 and loaded again when Redis has lost it.
 */
package dev.deja.redis.node;
