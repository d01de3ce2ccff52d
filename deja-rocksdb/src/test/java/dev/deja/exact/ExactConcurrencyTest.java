package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** checkThenAdd is linearizable per key: racing callers on one new key see exactly one NEW. */
class ExactConcurrencyTest {

    private static final int KEYS = 20_000;
    private static final int THREADS = 4;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // a lock-order deadlock would hang here
    void racingBatchesAndSingleCallsAgreeOnOneWinnerPerKeyWhoseOwnerIsStored() throws Exception {
        try (ExactStore store = TestStores.small(dir)
                .window(Duration.ofHours(1))
                .fsync(FsyncPolicy.NO)
                .open()) {
            AtomicIntegerArray newCount = new AtomicIntegerArray(KEYS);
            int[] winner = new int[KEYS];
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                long owner = 100L + t;
                done.add(pool.submit(() -> {
                    // Each thread visits every key in its own order, in batches of varied size, and the last
                    // thread uses single calls, so key locks are taken in every interleaving.
                    List<Integer> order = new ArrayList<>();
                    for (int i = 0; i < KEYS; i++) {
                        order.add(i);
                    }
                    Random random = new Random(thread);
                    Collections.shuffle(order, random);
                    start.await();
                    int pos = 0;
                    while (pos < KEYS) {
                        int n = thread == THREADS - 1 ? 1 : 1 + random.nextInt(300);
                        List<Integer> slice = order.subList(pos, Math.min(KEYS, pos + n));
                        List<byte[]> keys = new ArrayList<>();
                        long[] owners = new long[slice.size()];
                        for (int j = 0; j < slice.size(); j++) {
                            keys.add(key(slice.get(j)));
                            owners[j] = owner;
                        }
                        Verdict[] verdicts = store.checkThenAddAll(keys, owners);
                        for (int j = 0; j < verdicts.length; j++) {
                            assertThat(verdicts[j]).isNotEqualTo(Verdict.RETRY);
                            if (verdicts[j] == Verdict.NEW) {
                                newCount.incrementAndGet(slice.get(j));
                                winner[slice.get(j)] = (int) owner;
                            }
                        }
                        pos += slice.size();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            for (int i = 0; i < KEYS; i++) {
                assertThat(newCount.get(i)).as("NEW verdicts for key %d", i).isEqualTo(1);
                assertThat(store.info(key(i)).orElseThrow().owner())
                        .as("owner of key %d", i)
                        .isEqualTo(winner[i]);
            }
            assertThat(store.stats().insertions()).isEqualTo(KEYS);
        }
    }
}
