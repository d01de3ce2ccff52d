package dev.deja.journal;

import dev.deja.hash.Hash128;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Test fixture: an exact seen-set of key hashes to owners, with a streaming snapshot codec. */
final class MapSeenSet implements HashedSeenSet {

    static final SnapshotCodec<MapSeenSet> CODEC = new SnapshotCodec<>() {
        @Override
        public void write(MapSeenSet store, OutputStream out) throws IOException {
            DataOutputStream data = new DataOutputStream(out);
            for (Map.Entry<Hash128, Long> e : store.owners.entrySet()) {
                data.writeBoolean(true);
                data.writeLong(e.getKey().high());
                data.writeLong(e.getKey().low());
                data.writeLong(e.getValue());
            }
            data.writeBoolean(false);
            data.flush();
        }

        @Override
        public MapSeenSet read(InputStream in) throws IOException {
            DataInputStream data = new DataInputStream(in);
            MapSeenSet store = new MapSeenSet();
            while (data.readBoolean()) {
                store.owners.put(new Hash128(data.readLong(), data.readLong()), data.readLong());
            }
            return store;
        }
    };

    final ConcurrentHashMap<Hash128, Long> owners = new ConcurrentHashMap<>();

    /** The guarantee claimed; a test sets {@link Guarantee#NEVER_FALSE_NEW} to be journaled as a bloom filter is. */
    volatile Guarantee guarantee = Guarantee.EXACT_WITHIN_WINDOW;

    @Override
    public boolean checkHash(long high, long low) {
        return owners.containsKey(new Hash128(high, low));
    }

    @Override
    public void addHash(long high, long low, long owner) {
        owners.putIfAbsent(new Hash128(high, low), owner);
    }

    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        Long held = owners.putIfAbsent(new Hash128(high, low), owner);
        if (held == null) {
            return Verdict.NEW;
        }
        return owner != NO_OWNER && held == owner ? Verdict.RETRY : Verdict.DUPLICATE;
    }

    @Override
    public boolean forgetHash(long high, long low, long owner) {
        Hash128 key = new Hash128(high, low);
        return owner == NO_OWNER ? owners.remove(key) != null : owners.remove(key, owner);
    }

    @Override
    public Guarantee guarantee() {
        return guarantee;
    }

    @Override
    public SeenStats stats() {
        return new SeenStats("map", guarantee(), owners.size(), 0, new ErrorEstimate.Exact(Duration.ZERO));
    }
}
