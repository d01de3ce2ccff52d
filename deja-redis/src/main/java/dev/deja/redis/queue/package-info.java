/**
 * A delayed retry queue in Redis: {@link dev.deja.redis.queue.RetryQueue} keeps failed tasks in a sorted set scored by
 * due time, hands due ones to workers atomically with a visibility timeout, backs off failures exponentially with
 * jitter, keeps dead letters with their failure history, and can forget a failed task's key in a seen-set.
 */
package dev.deja.redis.queue;
