package dev.deja.redis.queue;

import java.util.List;

/**
 * A task that failed its last allowed attempt, with every failure; {@link RetryQueue#requeue(String)} queues it again.
 *
 * @param task     the task
 * @param failures every failed attempt, oldest first
 */
public record DeadLetter(Task task, List<Failure> failures) {

    public DeadLetter {
        failures = List.copyOf(failures);
    }
}
