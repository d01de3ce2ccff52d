package dev.deja.redis.queue;

/**
 * One failed attempt of a task.
 *
 * @param atMillis when it failed, milliseconds since the epoch (the worker's clock)
 * @param reason   what the worker said
 */
public record Failure(long atMillis, String reason) {}
