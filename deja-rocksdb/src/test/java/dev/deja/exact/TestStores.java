package dev.deja.exact;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The stores the exact store's tests open, so that tests which need the same store build it one way. Every builder
 * here takes 1 MiB of memtable and 1 MiB of block cache (the smallest cache the builder accepts) instead of the
 * builder's defaults (16 MiB and 256 MiB): the tests open many stores, one after another, and few need more. A test
 * adds the options its case is about (fsync policy, values, refresh, another memtable size) to the builder returned.
 */
final class TestStores {

    private TestStores() {}

    /** A store in {@code dir} with test-sized memory and no bound yet: the test sets its own window or size bound. */
    static ExactStoreBuilder small(Path dir) {
        return ExactStoreBuilder.at(dir).memtableBytes(1 << 20).blockCacheBytes(1 << 20);
    }

    /**
     * An 8-hour window in eight 1-hour generations, dated by {@code clock}: for tests that move time across
     * generations and out of the window.
     */
    static ExactStoreBuilder eightHourWindow(Path dir, Clock clock) {
        return small(dir).window(Duration.ofHours(8)).generations(8).clock(clock);
    }

    /** A 24-hour window, on the system clock unless the test sets one: for tests in which no key ages out. */
    static ExactStoreBuilder dayWindow(Path dir) {
        return small(dir).window(Duration.ofHours(24));
    }
}
