package dev.deja.seen;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes a piece of code allocates on the calling thread, as HotSpot counts them: for tests that a reader's
 * memory follows the bytes it read rather than the lengths a forged header claims. The count is exact for the
 * thread's own allocations, so a bound with room for the JIT and the JDK's buffers cannot flake.
 */
public final class Allocations {

    /** Code that may throw anything; its outcome is not the point, its allocations are. */
    public interface Action {
        void run() throws Exception;
    }

    private Allocations() {}

    /** The bytes {@code action} allocated on this thread, whether it returned or threw. */
    public static long of(Action action) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        try {
            action.run();
        } catch (Exception e) {
            // expected: the readers under test fail on the forged input
        }
        return threads.getCurrentThreadAllocatedBytes() - before;
    }
}
