package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.seen.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class BloomConcurrencyTest {

    private static final int THREADS = 4;
    private static final int ROUNDS = 200;
    private static final int KEYS_PER_ROUND = 500;

    @Test
    void exactlyOneRacerIsToldNewForEachFreshKey() throws Exception {
        // Sized far above the 100,000 keys raced so a false positive (which would give zero NEW) is negligible:
        // the expected number over the whole test is below 1e-3.
        BloomFilter filter =
                BloomFilter.builder().capacity(10_000_000).fpp(1e-9).build();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                byte[][] keys = Keys.random(1000 + round, KEYS_PER_ROUND);
                AtomicIntegerArray news = new AtomicIntegerArray(KEYS_PER_ROUND);
                List<Future<?>> racers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int offset = t; // each racer walks the keys from a different start, so they collide mid-way too
                    racers.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < KEYS_PER_ROUND; i++) {
                            int index = (i + offset * 7) % KEYS_PER_ROUND;
                            if (filter.checkThenAdd(keys[index], offset) == Verdict.NEW) {
                                news.incrementAndGet(index);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> racer : racers) {
                    racer.get();
                }
                for (int i = 0; i < KEYS_PER_ROUND; i++) {
                    assertThat(news.get(i))
                            .as("NEW answers for key %d of round %d", i, round)
                            .isEqualTo(1);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCheckSeesEveryAddThatHappensBeforeIt() throws Exception {
        // Lookups read chunks and words with plain loads: what they promise is to see every add that happens-before
        // them. The writer publishes how many keys it has added through a volatile counter; the reader, after reading
        // it, must find every one of those keys, including those whose add allocated a chunk moments before (the
        // filter is about 90 MiB of lazily allocated chunks, so the first thousands of adds each allocate one).
        BloomFilter filter =
                BloomFilter.builder().capacity(50_000_000).fpp(0.001).build();
        byte[][] keys = Keys.random(91, 200_000);
        AtomicInteger added = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> writer = pool.submit(() -> {
                for (int i = 0; i < keys.length; i++) {
                    filter.add(keys[i]);
                    added.set(i + 1);
                }
            });
            Future<Integer> reader = pool.submit(() -> {
                int checked = 0;
                while (checked < keys.length) {
                    int published = added.get();
                    for (; checked < published; checked++) {
                        if (!filter.check(keys[checked])) {
                            throw new AssertionError("key " + checked + " was added before " + published
                                    + " was published, but check did not see it");
                        }
                    }
                }
                return checked;
            });
            writer.get();
            assertThat(reader.get()).isEqualTo(keys.length);
        } finally {
            pool.shutdownNow();
        }
    }

    /** A merge and adds into the same filter at once: every key of both ends up held, and the bit count is exact. */
    @Test
    void aMergeRacingAddsLosesNoBits() throws Exception {
        BloomFilter target = BloomFilter.builder().capacity(200_000).fpp(0.01).build();
        BloomFilter source = BloomFilter.builder()
                .bits(target.bits())
                .hashes(target.hashes())
                .capacity(target.capacity())
                .build();
        byte[][] merged = Keys.random(78, 100_000);
        byte[][] added = Keys.random(79, 100_000);
        for (byte[] key : merged) {
            source.add(key);
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CyclicBarrier start = new CyclicBarrier(2);
            Future<?> adder = pool.submit(() -> {
                start.await();
                for (byte[] key : added) {
                    target.add(key);
                }
                return null;
            });
            Future<?> merger = pool.submit(() -> {
                start.await();
                for (int i = 0; i < 20; i++) {
                    target.mergeFrom(source); // again and again, so that it overlaps the adds
                }
                return null;
            });
            adder.get();
            merger.get();
        } finally {
            pool.shutdownNow();
        }
        for (byte[] key : merged) {
            assertThat(target.check(key)).isTrue();
        }
        for (byte[] key : added) {
            assertThat(target.check(key)).isTrue();
        }
        assertCountMatchesAScan(target);
    }

    @Test
    void concurrentAddsLoseNoBits() throws Exception {
        BloomFilter filter = BloomFilter.builder().capacity(400_000).fpp(0.01).build();
        byte[][] keys = Keys.random(77, 400_000);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> adders = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t;
                adders.add(pool.submit(() -> {
                    for (int i = first; i < keys.length; i += THREADS) {
                        filter.add(keys[i]);
                    }
                }));
            }
            for (Future<?> adder : adders) {
                adder.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (byte[] key : keys) {
            assertThat(filter.check(key)).isTrue();
        }
        assertCountMatchesAScan(filter);
    }

    /**
     * The incremental set-bit count agrees with a full scan (a merge into an empty filter of the same shape counts
     * every set bit afresh): no write was lost or double counted.
     */
    private static void assertCountMatchesAScan(BloomFilter filter) {
        BloomFilter scanned = BloomFilter.builder()
                .bits(filter.bits())
                .hashes(filter.hashes())
                .capacity(filter.capacity())
                .build();
        scanned.mergeFrom(filter);
        assertThat(scanned.fillRatio()).isEqualTo(filter.fillRatio());
    }
}
