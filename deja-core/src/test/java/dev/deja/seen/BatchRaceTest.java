package dev.deja.seen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.bloom.BloomFilter;
import dev.deja.bloom.WindowedBloomFilter;
import dev.deja.recent.RecentFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * checkThenAdd stays linearizable per key when the calls are batches racing single calls: threads that each send
 * the same fresh keys, in their own order, in batches of their own sizes or one by one, are told NEW exactly once
 * per key between them. The stores are sized so that nothing is evicted, rotated out or reported seen by a false
 * positive during the race, which makes "exactly once" the only right answer.
 */
class BatchRaceTest {

    private static final int THREADS = 4;
    private static final int KEYS = 20_000;

    static Stream<Arguments> stores() {
        return Stream.of(
                Arguments.of("bloom", (Supplier<SeenSet>) () ->
                        BloomFilter.builder().capacity(1_000_000).fpp(1e-9).build()),
                Arguments.of("windowed", (Supplier<SeenSet>) () -> WindowedBloomFilter.builder()
                        .capacity(1_000_000)
                        .fpp(1e-9)
                        .build()),
                Arguments.of("recent", (Supplier<SeenSet>) () -> RecentFilter.builder()
                        .buckets(1 << 22)
                        .ways(16)
                        .owners(true)
                        .build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void exactlyOneRacerIsToldNewPerKeyWhetherItSentABatchOrSingleCalls(String kind, Supplier<SeenSet> create)
            throws Exception {
        SeenSet store = create.get();
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            keys.add((kind + "-race-" + i).getBytes(StandardCharsets.UTF_8));
        }
        AtomicIntegerArray news = new AtomicIntegerArray(KEYS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    List<Integer> order = new ArrayList<>();
                    for (int i = 0; i < KEYS; i++) {
                        order.add(i);
                    }
                    Random random = new Random(thread);
                    Collections.shuffle(order, random);
                    start.await();
                    int batch = thread == 0 ? 1 : 1 + thread * 37; // thread 0 makes single calls
                    for (int from = 0; from < KEYS; from += batch) {
                        List<Integer> slice = order.subList(from, Math.min(KEYS, from + batch));
                        Verdict[] verdicts;
                        if (batch == 1) {
                            verdicts = new Verdict[] {store.checkThenAdd(keys.get(slice.get(0)), thread + 1)};
                        } else {
                            long[] owners = new long[slice.size()];
                            Arrays.fill(owners, thread + 1);
                            verdicts = store.checkThenAddAll(
                                    slice.stream().map(keys::get).toList(), owners);
                        }
                        for (int j = 0; j < verdicts.length; j++) {
                            if (verdicts[j] == Verdict.NEW) {
                                news.incrementAndGet(slice.get(j));
                            }
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
        int wrong = 0;
        for (int i = 0; i < KEYS; i++) {
            wrong += news.get(i) == 1 ? 0 : 1;
        }
        assertThat(wrong).as("keys not told NEW exactly once").isZero();
    }
}
