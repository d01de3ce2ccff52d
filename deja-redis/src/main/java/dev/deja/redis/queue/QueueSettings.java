package dev.deja.redis.queue;

import dev.deja.seen.SeenSet;
import java.time.Duration;
import java.time.InstantSource;
import java.util.random.RandomGenerator;

/**
 * A queue's settings, as {@link RetryQueueBuilder} checked them.
 *
 * @param visibilityTimeout how long a claim lasts
 * @param backoff           the wait between attempts
 * @param maxAttempts       attempts before a task is a dead letter
 * @param pollInterval      how often to ask Redis while nothing is due
 * @param seenSet           where a failed task's key is forgotten, or null
 * @param random            the jitter's source
 * @param clock             the failure history's clock
 */
record QueueSettings(
        Duration visibilityTimeout,
        Backoff backoff,
        int maxAttempts,
        Duration pollInterval,
        SeenSet seenSet,
        RandomGenerator random,
        InstantSource clock) {}
