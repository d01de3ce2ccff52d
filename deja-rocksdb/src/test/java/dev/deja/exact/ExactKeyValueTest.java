package dev.deja.exact;

import static dev.deja.seen.Verdict.DUPLICATE;
import static dev.deja.seen.Verdict.NEW;
import static dev.deja.seen.Verdict.RETRY;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The key-value operations of a store created with values: Redis's SET NX/XX, GET and PTTL on exact keys. */
class ExactKeyValueTest {

    /** Aligned to the hour, so the one-hour slices of an 8-hour window start exactly here. */
    private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");

    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final long WINDOW = 8 * HOUR;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    /** An 8-hour window in eight 1-hour generations, with values. */
    private ExactStoreBuilder builder() {
        return TestStores.eightHourWindow(dir.resolve("store"), clock).values(true);
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private long now() {
        return clock.millis();
    }

    private static String value(ExactStore store, String key) {
        return store.get(b(key)).map(e -> new String(e.value(), UTF_8)).orElse(null);
    }

    @Test
    void setNxSetsAnAbsentKeyOnlyOnce() {
        try (ExactStore store = builder().open()) {
            long expiry = now() + 60_000;
            assertThat(store.putIfAbsent(b("job-1"), b("worker-a"), expiry)).isTrue();
            assertThat(store.putIfAbsent(b("job-1"), b("worker-b"), expiry)).isFalse();
            assertThat(store.get(b("job-1"))).contains(new ExactStore.Entry(b("worker-a"), T0, expiry));
            assertThat(store.remainingMillis(b("job-1"))).isEqualTo(60_000);
            assertThat(store.get(b("absent"))).isEmpty();
            assertThat(store.remainingMillis(b("absent"))).isEqualTo(-2);
            // The key is a seen-set key like any other.
            assertThat(store.check(b("job-1"))).isTrue();
            assertThat(store.checkThenAdd(b("job-1"))).isEqualTo(DUPLICATE);
            assertThat(store.stats().insertions()).isEqualTo(1);
        }
    }

    @Test
    void aBatchOfSetNxAppliesInOrderAndRefusesOnlyTheBadKeys() {
        try (ExactStore store = builder().open()) {
            assertThat(store.putIfAbsent(b("held"), b("before"), 0)).isTrue();
            List<byte[]> keys = List.of(b("a"), b("a"), b("held"), b("late"), b("big"), b(""), b("b"));
            List<byte[]> values = List.of(b("first"), b("second"), b("x"), b("x"), new byte[513], b("x"), b("bee"));
            long[] expiries = {now() + 60_000, 0, 0, now() + 2 * WINDOW, 0, 0, -1};
            RuntimeException[] refused = new RuntimeException[keys.size()];

            boolean[] set = store.putIfAbsentAll(keys, values, expiries, refused);

            assertThat(set).containsExactly(true, false, false, false, false, false, false);
            assertThat(refused[0]).isNull();
            assertThat(refused[1]).as("a repeat sees the first").isNull();
            assertThat(refused[2]).isNull();
            assertThat(refused[3]).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
            assertThat(refused[4]).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 512");
            assertThat(refused[5]).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
            assertThat(refused[6]).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiresAt");
            assertThat(value(store, "a")).isEqualTo("first");
            assertThat(store.remainingMillis(b("a"))).isEqualTo(60_000);
            assertThat(value(store, "held")).isEqualTo("before");
            assertThat(store.checkAll(List.of(b("late"), b("big"), b("b")))).containsOnly(false);
            assertThat(store.stats().insertions()).isEqualTo(2);
            assertThatThrownBy(() -> store.putIfAbsentAll(keys, values, new long[1], refused))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("same length");
        }
    }

    @Test
    void setNxSucceedsOnAnExpiredKeyAndStartsItAfresh() {
        try (ExactStore store = builder().open()) {
            assertThat(store.putIfAbsent(b("k"), b("old"), now() + 1_000)).isTrue();
            clock.advance(Duration.ofMinutes(10));
            assertThat(store.get(b("k"))).isEmpty();
            assertThat(store.putIfAbsent(b("k"), b("new"), 0)).isTrue();
            ExactStore.Entry e = store.get(b("k")).orElseThrow();
            assertThat(new String(e.value(), UTF_8)).isEqualTo("new");
            assertThat(e.expiresAtMillis()).isZero();
            assertThat(e.firstSeen()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
        }
    }

    @Test
    void anExpiryAtOrBeforeNowSetsTheKeyAlreadyExpired() {
        try (ExactStore store = builder().open()) {
            assertThat(store.putIfAbsent(b("past"), b("v"), now() - 5_000)).isTrue();
            assertThat(store.putIfAbsent(b("now"), b("v"), now())).isTrue();
            assertThat(store.check(b("past"))).isFalse();
            assertThat(store.check(b("now"))).isFalse();
            store.put(b("held"), b("v"), 0, false);
            store.put(b("held"), b("v"), 1, false); // EXAT 1: long past
            assertThat(store.get(b("held"))).isEmpty();
        }
    }

    @Test
    void expiredKeysAreNotHeldForAnyOperation() {
        try (ExactStore store = builder().countDuplicates(true).open()) {
            store.putIfAbsent(b("a"), b("1"), now() + 1_000);
            store.putIfAbsent(b("b"), b("1"), now() + 1_000);
            store.putIfAbsent(b("c"), b("1"), now() + 1_000);
            store.putIfAbsent(b("d"), b("1"), now() + 1_000);
            store.putIfAbsent(b("e"), b("1"), now() + 1_000);
            clock.advance(Duration.ofMillis(999));
            assertThat(store.checkAll(List.of(b("a"), b("b")))).containsExactly(true, true);
            assertThat(store.remainingMillis(b("a"))).isEqualTo(1);
            clock.advance(Duration.ofMillis(1));

            assertThat(store.check(b("a"))).isFalse();
            assertThat(store.checkAll(List.of(b("a"), b("b")))).containsExactly(false, false);
            assertThat(store.get(b("a"))).isEmpty();
            assertThat(store.remainingMillis(b("a"))).isEqualTo(-2);
            assertThat(store.info(b("a"))).isEmpty();
            assertThat(store.forget(b("b"))).isFalse();
            assertThat(store.putIfPresent(b("c"), b("2"), 0, false)).isFalse();
            // checkThenAdd writes it again, fresh: no value, no expiry, first seen now.
            assertThat(store.checkThenAdd(b("d"), 7)).isEqualTo(NEW);
            assertThat(store.checkThenAdd(b("d"), 7)).isEqualTo(RETRY);
            assertThat(store.get(b("d"))).contains(new ExactStore.Entry(new byte[0], T0, 0));
            assertThat(store.info(b("d")).orElseThrow().duplicates()).isZero();
            assertThat(store.checkThenAddAll(List.of(b("e"), b("e")))).containsExactly(NEW, DUPLICATE);
        }
    }

    @Test
    void setXxOverwritesOnlyAHeldKeyAndKeepsWhatTheSeenSetKnows() {
        try (ExactStore store = builder().open()) {
            assertThat(store.putIfPresent(b("k"), b("v"), 0, false)).isFalse();
            assertThat(store.get(b("k"))).isEmpty();

            store.checkThenAdd(b("k"), 42);
            assertThat(store.get(b("k"))).contains(new ExactStore.Entry(new byte[0], T0, 0));
            clock.advance(Duration.ofMinutes(5));
            long expiry = now() + 30_000;
            assertThat(store.putIfPresent(b("k"), b("v2"), expiry, false)).isTrue();
            assertThat(store.get(b("k"))).contains(new ExactStore.Entry(b("v2"), T0, expiry));
            assertThat(store.checkThenAdd(b("k"), 42)).isEqualTo(RETRY);
            assertThat(store.putIfPresent(b("k"), b("v3"), 0, false)).isTrue();
            assertThat(store.remainingMillis(b("k")))
                    .isEqualTo(WINDOW - Duration.ofMinutes(5).toMillis());
        }
    }

    @Test
    void keepExpiryKeepsTheKeysExpiryLikeKeepTtl() {
        try (ExactStore store = builder().open()) {
            long expiry = now() + 90_000;
            store.put(b("k"), b("v1"), expiry, false);
            clock.advance(Duration.ofSeconds(10));
            store.put(b("k"), b("v2"), 0, true);
            assertThat(store.get(b("k"))).contains(new ExactStore.Entry(b("v2"), T0, expiry));
            assertThat(store.putIfPresent(b("k"), b("v3"), 0, true)).isTrue();
            assertThat(store.remainingMillis(b("k"))).isEqualTo(80_000);
            // Without keepExpiry the expiry is replaced, by none here.
            store.put(b("k"), b("v4"), 0, false);
            assertThat(store.get(b("k")).orElseThrow().expiresAtMillis()).isZero();
            // A new key given keepExpiry has none.
            store.put(b("fresh"), b("v"), 0, true);
            assertThat(store.get(b("fresh")).orElseThrow().expiresAtMillis()).isZero();
            assertThatThrownBy(() -> store.put(b("k"), b("v"), now() + 1, true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("keepExpiry");
        }
    }

    @Test
    void plainSetOverwritesAndAnExpiredKeyStartsAfresh() {
        try (ExactStore store = builder().open()) {
            store.put(b("k"), b("v1"), 0, false);
            clock.advance(Duration.ofMinutes(3));
            store.put(b("k"), b("v2"), now() + 1_000, false);
            assertThat(store.get(b("k")).orElseThrow().firstSeen()).isEqualTo(T0);
            clock.advance(Duration.ofSeconds(1));
            store.put(b("k"), b("v3"), 0, false);
            // Set afresh at 3 min 1 s, dated to the store's 15-second unit.
            assertThat(store.get(b("k"))).contains(new ExactStore.Entry(b("v3"), T0.plusSeconds(180), 0));
        }
    }

    @Test
    void anExpiryBeyondTheWindowIsRejectedNamingTheWindow() {
        try (ExactStore store = builder().open()) {
            assertThat(store.maxExpiresAtMillis()).isEqualTo(now() + WINDOW);
            assertThat(store.putIfAbsent(b("edge"), b("v"), store.maxExpiresAtMillis()))
                    .isTrue();
            assertThat(store.remainingMillis(b("edge"))).isEqualTo(WINDOW);
            assertThatThrownBy(() -> store.putIfAbsent(b("k"), b("v"), now() + 2 * WINDOW))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("expiry is 57600 s away but the store's window is 28800 s; create the namespace"
                            + " with a longer window");
            assertThatThrownBy(() -> store.put(b("k"), b("v"), now() + WINDOW + 1, false))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("28800001 ms away");
            // Rejected even where NX or XX would not have written: the command is wrong, not the key's state.
            assertThatThrownBy(() -> store.putIfAbsent(b("edge"), b("v"), now() + 2 * WINDOW))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.putIfPresent(b("k"), b("v"), now() + 2 * WINDOW, false))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.putIfAbsent(b("k"), b("v"), -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expiresAtMillis");
            assertThat(store.check(b("k"))).isFalse();
        }
    }

    @Test
    void withoutAnExpiryAKeyLastsItsWindowAndASizeOnlyStoreSaysMinusOne() {
        try (ExactStore store = builder().open()) {
            store.put(b("k"), b("v"), 0, false);
            clock.advance(Duration.ofMinutes(30));
            assertThat(store.remainingMillis(b("k")))
                    .isEqualTo(WINDOW - Duration.ofMinutes(30).toMillis());
        }
        Path other = dir.resolve("size-only");
        try (ExactStore store = TestStores.small(other)
                .maxBytes(1L << 30)
                .values(true)
                .clock(clock)
                .open()) {
            assertThat(store.maxExpiresAtMillis()).isEqualTo(Long.MAX_VALUE);
            store.put(b("k"), b("v"), 0, false);
            assertThat(store.remainingMillis(b("k"))).isEqualTo(-1);
            long far = now() + Duration.ofDays(3650).toMillis();
            store.put(b("far"), b("v"), far, false);
            assertThat(store.get(b("far")).orElseThrow().expiresAtMillis()).isEqualTo(far);
        }
    }

    @Test
    void valuesAndExpiriesSurviveReopening() {
        byte[] big = new byte[512];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        long expiry = now() + 3 * HOUR + 7;
        try (ExactStore store = builder().open()) {
            store.put(b("big"), big, 0, false);
            store.put(b("empty"), new byte[0], expiry, false);
            clock.advance(Duration.ofHours(2));
            store.put(b("later"), b("x"), expiry, false); // a second generation
        }
        try (ExactStore store = builder().open()) {
            assertThat(store.get(b("big"))).contains(new ExactStore.Entry(big, T0, 0));
            assertThat(store.get(b("empty"))).contains(new ExactStore.Entry(new byte[0], T0, expiry));
            assertThat(store.get(b("later")))
                    .contains(new ExactStore.Entry(b("x"), T0.plus(Duration.ofHours(2)), expiry));
            assertThat(store.remainingMillis(b("later"))).isEqualTo(HOUR + 7);
        }
    }

    @Test
    void valuesLongerThanTheLimitAreRejectedNamingIt() {
        try (ExactStore store = builder().open()) {
            assertThat(store.putIfAbsent(b("ok"), new byte[512], 0)).isTrue();
            assertThatThrownBy(() -> store.putIfAbsent(b("k"), new byte[513], 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 512 bytes");
            assertThatThrownBy(() -> store.put(b("k"), null, 0, false))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("value");
        }
        try (ExactStore store = builder().maxValueBytes(4).open()) {
            assertThat(store.putIfPresent(b("ok"), b("four"), 0, false)).isTrue();
            assertThatThrownBy(() -> store.putIfPresent(b("ok"), b("fives"), 0, false))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 4 bytes");
        }
        assertThatThrownBy(() -> builder().maxValueBytes((1 << 20) + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxValueBytes must be in [0, ");
        assertThatThrownBy(() -> builder().maxValueBytes(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theLayoutIsFixedWhenTheStoreIsCreated() {
        Path plain = dir.resolve("plain");
        Path kv = dir.resolve("kv");
        try (ExactStore store = ExactStoreBuilder.at(plain)
                .window(Duration.ofHours(1))
                .clock(clock)
                .open()) {
            store.add(b("a"));
            assertThatThrownBy(() -> store.put(b("a"), b("v"), 0, false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("store was created without values");
            assertThatThrownBy(() -> store.putIfAbsent(b("a"), b("v"), 0)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> store.putIfPresent(b("a"), b("v"), 0, false))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> store.get(b("a"))).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> store.remainingMillis(b("a"))).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(store::maxExpiresAtMillis).isInstanceOf(IllegalStateException.class);
        }
        assertThatThrownBy(() -> ExactStoreBuilder.at(plain)
                        .window(Duration.ofHours(1))
                        .values(true)
                        .open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("values must match")
                .hasMessageContaining("values(false)");
        try (ExactStore store = ExactStoreBuilder.at(kv)
                .window(Duration.ofHours(1))
                .values(true)
                .clock(clock)
                .open()) {
            store.put(b("a"), b("v"), 0, false);
        }
        assertThatThrownBy(() ->
                        ExactStoreBuilder.at(kv).window(Duration.ofHours(1)).open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("values must match")
                .hasMessageContaining("values(true)");
        try (ExactStore store = ExactStoreBuilder.at(plain)
                .window(Duration.ofHours(1))
                .clock(clock)
                .open()) {
            assertThat(store.check(b("a"))).isTrue();
        }
        try (ExactStore store = ExactStoreBuilder.at(kv)
                .window(Duration.ofHours(1))
                .values(true)
                .clock(clock)
                .open()) {
            assertThat(new String(store.get(b("a")).orElseThrow().value(), UTF_8))
                    .isEqualTo("v");
        }
    }

    @Test
    void aKeyWithAnExpirySetJustBeforeRolloverIsStillFoundAfterIt() {
        try (ExactStore store = builder().open()) {
            clock.set(T0.plusMillis(HOUR - 1));
            long expiry = now() + 30 * 60_000;
            assertThat(store.putIfAbsent(b("last-of-g0"), b("v"), expiry)).isTrue();
            assertThat(store.putIfAbsent(b("soon"), b("v"), T0.toEpochMilli() + HOUR + 1))
                    .isTrue();
            clock.set(T0.plusMillis(HOUR));
            store.add(b("first-of-g1")); // rolls over
            assertThat(store.metrics().generations()).isEqualTo(2);
            assertThat(store.get(b("last-of-g0")))
                    .contains(new ExactStore.Entry(b("v"), T0.plusMillis(HOUR - 15_000), expiry));
            assertThat(store.remainingMillis(b("last-of-g0"))).isEqualTo(30 * 60_000 - 1);
            assertThat(store.remainingMillis(b("soon"))).isEqualTo(1);
            assertThat(store.putIfAbsent(b("last-of-g0"), b("w"), 0)).isFalse();
            clock.advance(Duration.ofMillis(1));
            assertThat(store.check(b("soon"))).isFalse();
            clock.set(Instant.ofEpochMilli(expiry));
            assertThat(store.check(b("last-of-g0"))).isFalse();
            assertThat(store.putIfAbsent(b("last-of-g0"), b("w"), 0)).isTrue();
        }
    }

    @Test
    void anOverwriteGoesIntoTheNewestGenerationAndShadowsTheOldCopy() {
        try (ExactStore store = builder().open()) {
            store.put(b("k"), b("v1"), 0, false);
            clock.set(T0.plusMillis(2 * HOUR));
            store.put(b("k"), b("v2"), now() + 60_000, false); // a new generation
            assertThat(value(store, "k")).isEqualTo("v2");
            clock.advance(Duration.ofMinutes(1));
            // The newest copy has expired; the older copy without expiry must not show through.
            assertThat(store.check(b("k"))).isFalse();
            assertThat(store.get(b("k"))).isEmpty();
            assertThat(store.checkThenAdd(b("k"))).isEqualTo(NEW);
            store.put(b("k"), b("v3"), 0, false);
            // The first generation ages out; the overwrite lives on, a full window after it was made.
            clock.set(T0.plusMillis(2 * HOUR + WINDOW));
            store.maintain();
            assertThat(store.metrics().generations()).isEqualTo(2);
            assertThat(store.metrics().effectiveWindow()).isEqualTo(Duration.ofMillis(WINDOW));
            assertThat(value(store, "k")).isEqualTo("v3");
            assertThat(store.remainingMillis(b("k")))
                    .isEqualTo(Duration.ofMinutes(1).toMillis());
        }
    }

    @Test
    void duplicateCountingAndRefreshKeepValueAndExpiry() {
        try (ExactStore store =
                builder().countDuplicates(true).refreshOnDuplicate(true).open()) {
            long expiry = now() + 5 * HOUR;
            store.put(b("k"), b("v"), expiry, false);
            clock.set(T0.plusMillis(3 * HOUR));
            assertThat(store.checkThenAdd(b("k"))).isEqualTo(DUPLICATE); // copied forward, counted
            assertThat(store.get(b("k"))).contains(new ExactStore.Entry(b("v"), T0, expiry));
            assertThat(store.info(b("k")).orElseThrow().duplicates()).isEqualTo(1);
        }
    }

    @Test
    void forgetErasesAKeyValueKeyInEveryGeneration() {
        try (ExactStore store = builder().open()) {
            store.put(b("k"), b("v1"), 0, false);
            clock.set(T0.plusMillis(2 * HOUR));
            store.put(b("k"), b("v2"), 0, false);
            assertThat(store.forget(b("k"))).isTrue();
            assertThat(store.get(b("k"))).isEmpty();
            assertThat(store.putIfAbsent(b("k"), b("v3"), 0)).isTrue();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void racingSetNxOnOneKeyHasExactlyOneWinner() throws Exception {
        int threads = 8;
        int keys = 500;
        try (ExactStore store = builder().fsync(FsyncPolicy.NO).open()) {
            AtomicIntegerArray wins = new AtomicIntegerArray(keys);
            int[] winner = new int[keys];
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < keys; i++) {
                        // Every other key was set before and has expired: the race is then over a stale copy.
                        if (store.putIfAbsent(b("key-" + i), b("thread-" + thread), 0)) {
                            wins.incrementAndGet(i);
                            winner[i] = thread;
                        }
                    }
                    return null;
                }));
            }
            for (int i = 0; i < keys; i += 2) {
                store.putIfAbsent(b("key-" + i), b("expired"), now() - 1);
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            for (int i = 0; i < keys; i++) {
                assertThat(wins.get(i)).as("winners of key %d", i).isEqualTo(1);
                assertThat(value(store, "key-" + i)).isEqualTo("thread-" + winner[i]);
            }
        }
    }
}
