/**
 * Test fixtures: real {@code redis-server} processes on free loopback ports, alone or joined into a three-node Redis
 * Cluster, started and stopped by the tests.
 */
package dev.deja.redis.testing;
