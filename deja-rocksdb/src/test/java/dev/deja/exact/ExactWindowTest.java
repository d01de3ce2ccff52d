package dev.deja.exact;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Time and size bounds, and the rollover boundaries between generations. */
class ExactWindowTest {

    /** Aligned to the hour, so one-hour slices start exactly here. */
    private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");

    private static final Duration MS = Duration.ofMillis(1);
    /** Batches of 100 keys, one a second, for the size-bound test. */
    private static final int BATCHES = 1_000;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    /** An 8-hour window in eight 1-hour generations. */
    private ExactStore openTimeBounded(boolean refresh) {
        return TestStores.eightHourWindow(dir, clock)
                .refreshOnDuplicate(refresh)
                .open();
    }

    private static byte[] key(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void aKeyAddedJustBeforeRolloverIsHeldForTheWholeWindowAndNoLonger() {
        try (ExactStore store = openTimeBounded(false)) {
            clock.set(T0.plus(Duration.ofHours(1)).minus(MS));
            assertThat(store.checkThenAdd(key("last-of-g0"))).isEqualTo(Verdict.NEW);
            clock.set(T0.plus(Duration.ofHours(1)));
            assertThat(store.checkThenAdd(key("first-of-g1"))).isEqualTo(Verdict.NEW);
            assertThat(store.metrics().generations()).isEqualTo(2);
            assertThat(store.check(key("last-of-g0"))).isTrue();

            hourlyTraffic(store, 2, 8);
            clock.set(T0.plus(Duration.ofHours(9)).minus(Duration.ofMillis(2)));
            store.add(key("late"));
            assertThat(store.check(key("last-of-g0"))).as("8h - 1ms old").isTrue();
            clock.set(T0.plus(Duration.ofHours(9)).minus(MS));
            store.add(key("later"));
            assertThat(store.checkThenAdd(key("last-of-g0")))
                    .as("exactly 8h old")
                    .isEqualTo(Verdict.DUPLICATE);

            clock.set(T0.plus(Duration.ofHours(9)));
            store.add(key("now"));
            assertThat(store.check(key("last-of-g0")))
                    .as("older than the window, generation dropped")
                    .isFalse();
            assertThat(store.check(key("first-of-g1")))
                    .as("exactly 8h old, in the next generation")
                    .isTrue();
            assertThat(store.check(key("filler-2"))).isTrue();
            assertThat(store.metrics().effectiveWindow()).isEqualTo(Duration.ofHours(8));
        }
    }

    @Test
    void ageOutHappensOnMaintainWithoutWritesAndNeverDropsTheNewestGeneration() {
        try (ExactStore store = openTimeBounded(false)) {
            store.add(key("a"));
            clock.advance(Duration.ofHours(30));
            store.maintain();
            assertThat(store.check(key("a")))
                    .as("the newest generation stays, even when old")
                    .isTrue();
            store.add(key("b")); // rolls over; "a" is now in a generation whose successor is brand new
            assertThat(store.check(key("a"))).isTrue();
            clock.advance(Duration.ofHours(8));
            store.maintain();
            assertThat(store.check(key("a"))).isFalse();
            assertThat(store.check(key("b"))).isTrue();
            assertThat(store.metrics().generations()).isEqualTo(2);
        }
    }

    /** One key an hour from {@code fromHour} to {@code toHour}, as live traffic would write. */
    private void hourlyTraffic(ExactStore store, int fromHour, int toHour) {
        for (int h = fromHour; h <= toHour; h++) {
            clock.set(T0.plus(Duration.ofHours(h)));
            store.add(key("filler-" + h));
        }
    }

    @Test
    void refreshOnDuplicateKeepsASeenAgainKeyForAnotherWindow() {
        try (ExactStore store = openTimeBounded(true)) {
            store.checkThenAdd(key("busy"), 5);
            store.add(key("quiet"));
            hourlyTraffic(store, 1, 7);
            assertThat(store.checkThenAdd(key("busy"), 6)).isEqualTo(Verdict.DUPLICATE);
            hourlyTraffic(store, 8, 14);
            assertThat(store.check(key("quiet"))).isFalse();
            assertThat(store.checkThenAdd(key("busy"), 5))
                    .as("owner and first-seen travel with the copy")
                    .isEqualTo(Verdict.RETRY);
            assertThat(store.info(key("busy")).orElseThrow().firstSeen()).isEqualTo(T0);
            assertThat(store.forget(key("busy"), 5)).isTrue();
            assertThat(store.check(key("busy"))).as("forget erases every copy").isFalse();
        }
    }

    @Test
    void withoutRefreshADuplicateDoesNotExtendTheWindow() {
        try (ExactStore store = openTimeBounded(false)) {
            store.add(key("k"));
            hourlyTraffic(store, 1, 7);
            assertThat(store.checkThenAdd(key("k"))).isEqualTo(Verdict.DUPLICATE);
            hourlyTraffic(store, 8, 9);
            assertThat(store.check(key("k"))).isFalse();
        }
    }

    @Test
    void afterAnIdleSpellOldKeysLingerUntilNewerOnesAreAWindowOld() {
        // No key written in between means nothing proves the old generation's keys are out of the window
        // before its successor is: over-retention, never a wrong "new".
        try (ExactStore store = openTimeBounded(false)) {
            store.add(key("k"));
            clock.set(T0.plus(Duration.ofHours(7)));
            store.add(key("next"));
            clock.set(T0.plus(Duration.ofHours(15)).minus(MS));
            store.maintain();
            assertThat(store.check(key("k"))).isTrue();
            clock.set(T0.plus(Duration.ofHours(15)));
            store.maintain();
            assertThat(store.check(key("k"))).isFalse();
        }
    }

    @Test
    void theSizeBoundDropsWholeOldGenerationsAndWarnsWhenTheWindowFallsBelowTheMinimum() {
        long maxBytes = 1L << 20;
        try (ExactStore store = ExactStoreBuilder.at(dir)
                .window(Duration.ofHours(24))
                .maxBytes(maxBytes)
                .generations(4)
                .minWindow(Duration.ofHours(1))
                .clock(clock)
                .memtableBytes(128 << 10)
                .blockCacheBytes(1 << 20)
                .fsync(FsyncPolicy.NO)
                .open()) {
            SplittableRandom random = new SplittableRandom(7);
            List<byte[]> all = new ArrayList<>();
            for (int b = 0; b < BATCHES; b++) {
                List<byte[]> batch = new ArrayList<>(100);
                for (int i = 0; i < 100; i++) {
                    byte[] k = ByteBuffer.allocate(16)
                            .putLong(random.nextLong())
                            .putLong(random.nextLong())
                            .array();
                    batch.add(k);
                    all.add(k);
                }
                assertThat(store.checkThenAddAll(batch)).containsOnly(Verdict.NEW);
                clock.advance(Duration.ofSeconds(1));
            }
            store.maintain();
            ExactMetrics m = store.metrics();
            assertThat(m.storeBytes()).isLessThanOrEqualTo(maxBytes);
            assertThat(m.generations()).isGreaterThan(1);
            assertThat(m.windowBelowMinimum()).isTrue();
            assertThat(m.windowWarnings()).isEqualTo(1);
            assertThat(m.effectiveWindow()).isLessThan(Duration.ofSeconds(BATCHES));

            // Whole generations go, oldest first: what is held is exactly a suffix of the insertion order.
            boolean[] held = store.checkAll(all);
            int firstHeld = 0;
            while (firstHeld < held.length && !held[firstHeld]) {
                firstHeld++;
            }
            assertThat(firstHeld).as("some old keys were dropped").isGreaterThan(0);
            for (int i = firstHeld; i < held.length; i++) {
                assertThat(held[i]).as("key %d of %d", i, held.length).isTrue();
            }
            // The effective window is the age of the oldest key held (its generation's creation, to a batch).
            long oldestAgeSeconds = (long) BATCHES - firstHeld / 100;
            assertThat(m.effectiveWindow().toSeconds()).isBetween(oldestAgeSeconds - 1, oldestAgeSeconds + 1);

            // Time passes without new keys: the window grows back above the minimum and the alarm clears.
            clock.advance(Duration.ofHours(2));
            assertThat(store.metrics().windowBelowMinimum()).isFalse();
        }
    }
}
