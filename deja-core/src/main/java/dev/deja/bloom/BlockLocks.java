package dev.deja.bloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The locks that serialise the writers of a filter's blocks, striped by block index, each with a count of the bits
 * set under it. Every write of a bit takes one: a writer takes its block's stripe, reads and writes the block's words
 * with plain (opaque) accesses, adds what it set to the stripe's count and releases. Readers take nothing
 * ({@link ChunkedBits#read}).
 *
 * <p>Why a lock rather than an atomic OR per word. A new key of a filter at its design load has half of its bits
 * clear, spread over its block's eight words; setting them atomically costs a locked read-modify-write per word, and a
 * shared counter updated atomically one more. A stripe lock costs one locked instruction to take and a plain store to
 * release, and the words between are written without a branch on their bits, in the straight-line form of
 * {@link SectoredBlocks#setFromLow}: one locked instruction per new key instead of one per word it changes
 * (docs/BENCHMARKS.md, section "bloom vs Guava", puts the lock's cost beside a plain store's). {@code synchronized}
 * would not do: taking and releasing a monitor are both locked instructions on HotSpot.
 *
 * <p>The lock is a test-and-set word per stripe, held for a few dozen instructions that neither block nor allocate
 * (the caller allocates the block's chunk before taking it). A waiter spins with {@link Thread#onSpinWait} and, in
 * case the holder was descheduled, yields its processor after {@value #SPINS_BEFORE_YIELD} spins. Each stripe's lock
 * and count share one 64-byte line of {@link #state} and no stripe shares the other's, so threads writing to
 * different stripes do not contend for a line.
 *
 * <p>Memory ordering. Taking the lock is a compare-and-set (volatile) and releasing it a release store, so every
 * holder sees the words and the count the previous holder of the stripe wrote. Words are written with opaque stores
 * ({@link ChunkedBits#write}), which a racing lookup's plain load sees whole, old or new.
 */
final class BlockLocks {

    /** Number of stripes; a power of two. */
    static final int STRIPES = 1024;
    /** Longs per stripe: 64 bytes, so that stripes do not share cache lines. */
    private static final int STRIDE = 8;
    /** Spins before a waiter yields its processor to a holder that may have been descheduled. */
    private static final int SPINS_BEFORE_YIELD = 100;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** Heap the locks take: the array of {@link #state}, 64 KiB and its header, allocated with the filter. */
    static final long HEAP_BYTES = ChunkedBits.ARRAY_HEADER_BYTES + 8L * STRIPES * STRIDE;

    /** Per stripe, at {@code STRIDE * stripe}: the lock word (1 held, 0 free), then the bits set under it. */
    private final long[] state = new long[STRIPES * STRIDE];

    /** The stripe of a block. */
    static int stripe(long block) {
        return (int) block & (STRIPES - 1);
    }

    /** Takes the stripe's lock, waiting while another thread holds it. Not reentrant. */
    void lock(int stripe) {
        int at = stripe * STRIDE;
        if (!SLOT.compareAndSet(state, at, 0L, 1L)) {
            await(at);
        }
    }

    @SuppressWarnings("ThreadPriorityCheck") // the spin lock's backoff: yield to a holder that may be descheduled
    private void await(int at) {
        int spins = 0;
        do {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        } while ((long) SLOT.getOpaque(state, at) != 0L || !SLOT.compareAndSet(state, at, 0L, 1L));
    }

    /** Adds {@code bitsSet} to the stripe's count and releases its lock; only by the thread holding it. */
    void unlock(int stripe, long bitsSet) {
        int at = stripe * STRIDE;
        SLOT.setOpaque(state, at + 1, state[at + 1] + bitsSet);
        SLOT.setRelease(state, at, 0L);
    }

    /** Bits set under all the stripes: exact while no writer is active, else a sum of counts read one by one. */
    long bitsSet() {
        long sum = 0;
        for (int at = 1; at < state.length; at += STRIDE) {
            sum += (long) SLOT.getOpaque(state, at);
        }
        return sum;
    }
}
