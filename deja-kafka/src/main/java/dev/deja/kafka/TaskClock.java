package dev.deja.kafka;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The time an {@link ExactStateStore} dates ids by and rolls its generations over with: the latest time the task has
 * reached on the step's clock (stream time, or the wall clock), never moving back.
 */
final class TaskClock extends Clock {

    private volatile long millis;

    /** Moves the clock to {@code time} if that is later than where it is. */
    void advanceTo(long time) {
        if (time > millis) {
            millis = time;
        }
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a task's clock is in UTC");
    }
}
