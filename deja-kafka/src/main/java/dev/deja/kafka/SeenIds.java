package dev.deja.kafka;

import dev.deja.seen.Verdict;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.WindowStore;

/** The ids of one task's partition: {@code checkThenAdd(id, owner, time)} with deja-core's {@link Verdict}. */
interface SeenIds {

    /** What {@link #checkThenAdd} found: the verdict, and the owner and time of the copy first recorded. */
    record Seen(Verdict verdict, long firstOwner, long firstTime) {}

    /**
     * Records {@code id} under {@code owner} at {@code time} unless a copy is held within the window, and says what
     * it was: {@code NEW}, {@code RETRY} (held under this same owner) or {@code DUPLICATE}, with the first copy's owner
     * and time.
     */
    Seen checkThenAdd(byte[] id, long owner, long time);

    /** How far back ids are answered from at {@code now}: the window, or less when a cap or a young store cuts it. */
    long effectiveWindowMs(long now);

    /** The ids counted as held, when capped; -1 otherwise. */
    long idsHeld();

    /** The task's ids in {@code store}, the store a {@link Settings#storeBuilder()} built. */
    @SuppressWarnings("unchecked") // the window store is built by Settings with these types
    static SeenIds in(StateStore store, Settings settings) {
        if (store instanceof ExactStateStore exact) {
            return exact;
        }
        if (store instanceof WindowStore<?, ?> window) {
            return new SeenWindow(
                    (WindowStore<Bytes, byte[]>) window, settings.window().toMillis(), settings.maxIdsPerPartition());
        }
        throw new IllegalStateException("the store " + store.name() + " is not a de-dup store: " + store.getClass());
    }
}
