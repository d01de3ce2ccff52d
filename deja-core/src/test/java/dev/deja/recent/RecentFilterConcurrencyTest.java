package dev.deja.recent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.hash.Hash128;
import dev.deja.seen.Verdict;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class RecentFilterConcurrencyTest {

    private static final int THREADS = 4;
    private static final int KEYS = 100_000;

    @Test
    void exactlyOneRacingThreadIsToldNew() throws Exception {
        // The keys go to distinct sets, so none is evicted during the race and every key must be NEW exactly
        // once, whatever the interleaving.
        for (int ways : new int[] {1, 8}) {
            for (boolean owners : new boolean[] {false, true}) {
                RecentFilter filter = RecentFilter.builder()
                        .buckets(1 << 22)
                        .ways(ways)
                        .owners(owners)
                        .build();
                AtomicIntegerArray news = race(filter, keysInDistinctSets(filter), owners);
                int wrong = 0;
                for (int i = 0; i < KEYS; i++) {
                    wrong += news.get(i) == 1 ? 0 : 1;
                }
                assertThat(wrong)
                        .as("keys not NEW exactly once, ways=%d owners=%s", ways, owners)
                        .isZero();
                assertThat(filter.stats().insertions()).isEqualTo(KEYS);
            }
        }
    }

    private static List<byte[]> keysInDistinctSets(RecentFilter filter) {
        long sets = filter.buckets() / filter.ways();
        Set<Long> used = new HashSet<>();
        List<byte[]> keys = new ArrayList<>();
        for (long i = 0; keys.size() < KEYS; i++) {
            byte[] key = Keys.of(99, i);
            if (used.add(Hash128.reduce(Hash128.of(key).high(), sets))) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static AtomicIntegerArray race(RecentFilter filter, List<byte[]> keys, boolean owners) throws Exception {
        AtomicIntegerArray news = new AtomicIntegerArray(KEYS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long owner = owners ? t + 1 : 0;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < KEYS; i++) {
                        if (filter.checkThenAdd(keys.get(i), owner) == Verdict.NEW) {
                            news.incrementAndGet(i);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return news;
    }
}
