package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class KeyLocksTest {

    private static long[] hashes(long... ids) {
        long[] out = new long[2 * ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[2 * i] = ids[i] * 0x9E3779B97F4A7C15L;
            out[2 * i + 1] = ids[i];
        }
        return out;
    }

    @Test
    void batchesWithoutACommonKeyHoldTheirLocksTogether() throws Exception {
        KeyLocks locks = new KeyLocks();
        KeyLocks.Lease first = locks.lock(hashes(LongStream.range(0, 2_000).toArray()));
        // Another thread locks 2,000 other keys while the first batch still holds its own: it must not wait (an
        // array of locks indexed by hash would make it, for the stripes the two batches happen to share).
        KeyLocks.Lease second = CompletableFuture.supplyAsync(
                        () -> locks.lock(hashes(LongStream.range(2_000, 4_000).toArray())))
                .get(10, TimeUnit.SECONDS);
        locks.unlock(second);
        locks.unlock(first);
    }

    @Test
    void aBatchSharingAKeyWaitsForTheHoldersRelease() throws Exception {
        KeyLocks locks = new KeyLocks();
        KeyLocks.Lease first = locks.lock(hashes(1, 2, 3));
        CompletableFuture<KeyLocks.Lease> second = CompletableFuture.supplyAsync(() -> locks.lock(hashes(9, 3)));
        Thread.sleep(200);
        assertThat(second).isNotDone();
        locks.unlock(first);
        locks.unlock(second.get(10, TimeUnit.SECONDS));
        // Repeated keys in one batch are one lock, and everything is free again afterwards.
        locks.unlock(locks.lock(hashes(3, 3, 1, 1)));
    }

    @Test
    void overlappingBatchesInRandomOrdersExcludeEachOtherPerKeyAndNeverDeadlock() throws Exception {
        KeyLocks locks = new KeyLocks();
        int keys = 64;
        AtomicIntegerArray holders = new AtomicIntegerArray(keys);
        AtomicIntegerArray overlaps = new AtomicIntegerArray(1);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            SplittableRandom random = new SplittableRandom(t);
            done.add(pool.submit(() -> {
                for (int round = 0; round < 2_000; round++) {
                    long[] ids = new long[1 + random.nextInt(8)];
                    for (int i = 0; i < ids.length; i++) {
                        ids[i] = random.nextInt(keys);
                    }
                    KeyLocks.Lease lease = locks.lock(hashes(ids));
                    long[] distinct = Arrays.stream(ids).distinct().toArray();
                    for (long id : distinct) {
                        if (holders.incrementAndGet((int) id) != 1) {
                            overlaps.incrementAndGet(0);
                        }
                    }
                    for (long id : distinct) {
                        holders.decrementAndGet((int) id);
                    }
                    locks.unlock(lease);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS); // a deadlock would time out here
        }
        pool.shutdown();
        assertThat(overlaps.get(0)).as("times two batches held one key at once").isZero();
    }
}
