package dev.deja.cuckoo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.hash.Hash128;
import dev.deja.seen.Guarantee;
import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CuckooFilterTest {

    private static byte[] key(long i) {
        return ByteBuffer.allocate(12).putInt(0x6b657973).putLong(i).array();
    }

    @Test
    void answersLikeASeenSetAndForgetsAKey() {
        CuckooFilter filter = CuckooFilter.create(1000);
        assertThat(filter.checkThenAdd(key(1))).isEqualTo(Verdict.NEW);
        assertThat(filter.checkThenAdd(key(1))).isEqualTo(Verdict.DUPLICATE);
        assertThat(filter.checkThenAdd(key(1), 7)).isEqualTo(Verdict.DUPLICATE); // owners are not stored
        assertThat(filter.check(key(1))).isTrue();
        assertThat(filter.items()).isEqualTo(1);

        assertThat(filter.forget(key(1))).isTrue();
        assertThat(filter.check(key(1))).isFalse();
        assertThat(filter.forget(key(1))).isFalse();
        assertThat(filter.items()).isZero();
        assertThat(filter.deletes()).isEqualTo(1);
        assertThat(filter.guarantee()).isEqualTo(Guarantee.NEVER_FALSE_NEW);
    }

    @Test
    void holdsCopiesOfAKeyAndForgetsOneAtATime() {
        CuckooFilter filter = CuckooFilter.create(1000);
        filter.insert(key(5));
        filter.insert(key(5));
        filter.insert(key(5));
        assertThat(filter.count(key(5))).isEqualTo(3);
        assertThat(filter.forget(key(5))).isTrue();
        assertThat(filter.count(key(5))).isEqualTo(2);
        assertThat(filter.check(key(5))).isTrue();
        filter.forget(key(5));
        filter.forget(key(5));
        assertThat(filter.count(key(5))).isZero();
        assertThat(filter.check(key(5))).isFalse();
    }

    @Test
    void aMillionKeysAreAllHeldAndNewKeysAreRarelyCalledSeen() {
        int n = 1_000_000;
        CuckooFilter filter = CuckooFilter.create(n);
        for (int i = 0; i < n; i++) {
            assertThat(filter.checkThenAdd(key(i)) == Verdict.NEW || filter.check(key(i)))
                    .isTrue();
        }
        // 2^19 buckets of 2 slots, 1,048,576 slots: at 95% load some inserts find no room in 20 moves, so it grows
        assertThat(filter.tables()).isBetween(2, 3);
        for (int i = 0; i < n; i++) {
            if (!filter.check(key(i))) {
                throw new AssertionError("key " + i + " was added and is reported new");
            }
        }
        long falseSeen = 0;
        int probes = 1_000_000;
        for (int i = 0; i < probes; i++) {
            if (filter.check(key(n + 10L * n + i))) {
                falseSeen++;
            }
        }
        double measured = (double) falseSeen / probes;
        double bound = filter.errorEstimate().currentFpp();
        // each table answers wrongly with probability at most 2 * 2 * its load / 65535; 6 sigma of a Poisson count
        assertThat(bound).isLessThanOrEqualTo(filter.tables() * 4.0 / 65535);
        assertThat((double) falseSeen).isLessThanOrEqualTo(bound * probes + 6 * Math.sqrt(bound * probes));
        assertThat(measured).isGreaterThan(bound / 4); // the fingerprints do collide: the bound is not vacuous
    }

    @Test
    void aFilterThatMayNotGrowRefusesAKeyAndStaysAsItWas() {
        int capacity = 1 << 16;
        CuckooFilter filter = CuckooFilter.create(capacity, 2, CuckooFilter.DEFAULT_MAX_ITERATIONS, 0);
        long added = 0;
        long refusedAt = -1;
        for (long i = 0; i < 2L * capacity; i++) {
            try {
                filter.insert(key(i));
                added++;
            } catch (CuckooFullException e) {
                refusedAt = i;
                break;
            }
        }
        assertThat(refusedAt).isPositive();
        double load = (double) added / capacity;
        // with 2 slots per bucket and 20 moves, the first refusal comes late: the table is mostly full
        assertThat(load).isGreaterThan(0.6);
        assertThat(filter.items()).isEqualTo(added);
        for (long i = 0; i < added; i++) {
            if (!filter.check(key(i))) {
                throw new AssertionError("key " + i + " was lost by the refused insert");
            }
        }
        long first = refusedAt;
        assertThatThrownBy(() -> filter.insert(key(first)))
                .isInstanceOf(CuckooFullException.class)
                .hasMessageContaining("may not grow");
        assertThat(filter.items()).isEqualTo(added);
    }

    @Test
    void aGrowingFilterAddsTablesAndLosesNoKey() {
        CuckooFilter filter = CuckooFilter.create(1000, 2, 20, 2);
        for (int i = 0; i < 20_000; i++) {
            filter.insert(key(i));
        }
        assertThat(filter.tables()).isGreaterThan(2);
        assertThat(filter.items()).isEqualTo(20_000);
        for (int i = 0; i < 20_000; i++) {
            assertThat(filter.check(key(i))).isTrue();
        }
        for (int i = 0; i < 20_000; i++) {
            assertThat(filter.forget(key(i))).isTrue();
        }
        assertThat(filter.items()).isZero();
        assertThat(filter.check(key(3))).isFalse();
    }

    @Test
    void theSameCallsLeaveTheSameFilter() {
        CuckooFilter a = CuckooFilter.create(4096, 2, 20, 1);
        CuckooFilter b = CuckooFilter.create(4096, 2, 20, 1);
        for (int i = 0; i < 10_000; i++) {
            a.insert(key(i));
            b.insert(key(i));
            if (i % 3 == 0) {
                a.forget(key(i / 2));
                b.forget(key(i / 2));
            }
        }
        assertThat(b.tables()).isEqualTo(a.tables());
        assertThat(b.items()).isEqualTo(a.items());
        for (int i = 0; i < 50_000; i++) {
            Hash128 h = Hash128.of(key(i));
            assertThat(b.countHash(h.high(), h.low())).isEqualTo(a.countHash(h.high(), h.low()));
        }
    }

    @Test
    void aLookupNeverMissesAKeyThatConcurrentInsertsMove() throws InterruptedException {
        int held = 40_000;
        CuckooFilter filter = CuckooFilter.create(1 << 16, 2, 500, 0);
        for (int i = 0; i < held; i++) {
            filter.add(key(i));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong misses = new AtomicLong();
        CountDownLatch started = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            started.countDown();
            long i = 0;
            while (!stop.get()) {
                if (!filter.check(key(i++ % held))) {
                    misses.incrementAndGet();
                }
            }
        });
        reader.start();
        started.await();
        // fill the table far past half, so that inserts move the fingerprints the reader looks for
        for (int i = held; i < 60_000; i++) {
            try {
                filter.add(key(i));
            } catch (CuckooFullException e) {
                break;
            }
        }
        stop.set(true);
        reader.join();
        assertThat(misses.get()).isZero();
    }

    @Test
    void refusesParametersOutOfRange() {
        assertThatThrownBy(() -> CuckooFilter.create(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CuckooFilter.create(100, 0, 20, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CuckooFilter.create(100, 256, 20, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CuckooFilter.create(100, 2, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CuckooFilter.create(100, 2, 20, 32769)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CuckooFilter.create(1L << 40, 2, 20, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slots");
    }
}
