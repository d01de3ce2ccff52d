package dev.deja.exact;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * When the generations are maintained (rolled over, aged out, cut to the size bound: {@link Generations#maintain}):
 * by a write once the time it is next due has come, or, under a size bound, every {@value #SIZE_CHECK_EVERY} calls;
 * and whenever a server's timer asks, so that age-out happens while no one writes. A store opened read-only never
 * rolls over.
 */
final class GenerationUpkeep {

    /** Calls between two size checks when only the size bound can trigger maintenance. */
    private static final int SIZE_CHECK_EVERY = 64;

    private final Generations generations;
    private final StoreGuard guard;
    private final Clock clock;
    private final boolean readOnly;

    private volatile long nextMillis = Long.MIN_VALUE;
    private final AtomicInteger sizeCheckCountdown = new AtomicInteger(SIZE_CHECK_EVERY);

    GenerationUpkeep(Generations generations, StoreGuard guard, Clock clock, StoreHealth health) {
        this.generations = generations;
        this.guard = guard;
        this.clock = clock;
        this.readOnly = health.readOnly();
    }

    /** Maintains the generations now, alone ({@link StoreGuard#exclusive}). */
    void maintain() {
        if (readOnly) {
            return; // no rollover without writes; writes are refused anyway
        }
        guard.exclusive("maintain generations", () -> {
            nextMillis = generations.maintain(clock.millis());
            sizeCheckCountdown.set(SIZE_CHECK_EVERY);
            return null;
        });
    }

    /** Maintains the generations if it is due; called before each write. */
    void maintainIfDue() {
        if (clock.millis() >= nextMillis || (generations.sizeBounded() && sizeCheckCountdown.decrementAndGet() <= 0)) {
            maintain();
        }
    }
}
