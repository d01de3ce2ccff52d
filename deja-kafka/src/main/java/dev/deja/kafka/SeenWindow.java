package dev.deja.kafka;

import dev.deja.hash.Hash128;
import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * The ids of one task's partition, in a Kafka Streams window store: {@code checkThenAdd(id, owner, time)} with
 * deja-core's meaning ({@link Verdict}) over a time window.
 *
 * <p>Each id is stored once, when first seen, as its 16-byte XXH3-128 hash at its time, with its owner (8 bytes) as
 * the value. A lookup fetches the id's entries less than one window before or after the time asked about; the store
 * drops whole segments as stream time passes (its retention is the window), never a key at a time. With a cap, the
 * ids held are counted in {@link HeldIds} and the oldest slices of the window stop being answered from once the cap
 * is passed: the effective window shrinks, as in Segment's de-dup worker, rather than the store growing.
 */
final class SeenWindow implements SeenIds {

    private final WindowStore<Bytes, byte[]> store;
    private final long windowMs;
    private final HeldIds held;

    SeenWindow(WindowStore<Bytes, byte[]> store, long windowMs, long maxIds) {
        this.store = store;
        this.windowMs = windowMs;
        this.held = new HeldIds(windowMs, maxIds);
        try (KeyValueIterator<Windowed<Bytes>, byte[]> all = store.all()) {
            // Segments are visited oldest first, so the first entry dates the oldest slice held; with a cap every
            // entry is counted again, since the counts live only in memory.
            while (all.hasNext()) {
                held.restored(all.next().key.window().start());
                if (!held.capped()) {
                    break;
                }
            }
        }
    }

    /** {@inheritDoc} A copy is held when its time is less than one window before or after {@code time}. */
    @Override
    public Seen checkThenAdd(byte[] id, long owner, long time) {
        Bytes key = key(Hash128.of(id));
        long from = Math.max(held.floor(), saturatedAdd(time, 1 - windowMs));
        long to = saturatedAdd(time, windowMs - 1);
        try (WindowStoreIterator<byte[]> copies = store.fetch(key, Math.max(0, from), to)) {
            if (copies.hasNext()) {
                KeyValue<Long, byte[]> first = copies.next();
                long firstOwner = ByteBuffer.wrap(first.value).getLong();
                Verdict verdict = owner != SeenSet.NO_OWNER && owner == firstOwner ? Verdict.RETRY : Verdict.DUPLICATE;
                return new Seen(verdict, firstOwner, first.key);
            }
        }
        store.put(key, ByteBuffer.allocate(Long.BYTES).putLong(owner).array(), time);
        held.added(time);
        return new Seen(Verdict.NEW, owner, time);
    }

    @Override
    public long effectiveWindowMs(long now) {
        return Math.max(0, Math.min(windowMs, now - held.oldest()));
    }

    @Override
    public long idsHeld() {
        return held.capped() ? held.count() : -1;
    }

    private static Bytes key(Hash128 hash) {
        return Bytes.wrap(
                ByteBuffer.allocate(16).putLong(hash.high()).putLong(hash.low()).array());
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
