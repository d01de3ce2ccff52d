package dev.deja.exact;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so. */
final class ManualClock extends Clock {

    private final AtomicLong millis;

    ManualClock(Instant start) {
        millis = new AtomicLong(start.toEpochMilli());
    }

    void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    void set(Instant t) {
        millis.set(t.toEpochMilli());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("tests use UTC");
    }
}
