package dev.deja.testing;

import dev.deja.namespace.KindParameters;
import dev.deja.namespace.SnapshotKind;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test-only store kind: an exact hash map of key hashes to owners, taking bloom-like parameters, so server
 * behaviour is tested without depending on a filter's false positives.
 */
public final class FixtureKind implements SnapshotKind {

    private final String name;

    public FixtureKind(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Map<String, String> parameters(Map<String, String> raw) {
        KindParameters.onlyKnown(name, raw, Set.of("capacity", "fpp", "bits", "k"));
        Map<String, String> canonical = new TreeMap<>();
        canonical.put("capacity", Long.toString(KindParameters.longValue(raw, "capacity", 1, Long.MAX_VALUE, 1000)));
        canonical.put("fpp", Double.toString(KindParameters.probability(raw, "fpp", 0.01)));
        if (raw.containsKey("bits")) {
            canonical.put("bits", Long.toString(KindParameters.longValue(raw, "bits", 64, 1L << 40, 64)));
        }
        if (raw.containsKey("k")) {
            canonical.put("k", Long.toString(KindParameters.longValue(raw, "k", 1, 32, 1)));
        }
        return canonical;
    }

    @Override
    public HashedSeenSet create(Map<String, String> parameters) {
        return new MapStore();
    }

    @Override
    public void writeSnapshot(HashedSeenSet store, OutputStream out) throws IOException {
        MapStore map = (MapStore) store;
        DataOutputStream data = new DataOutputStream(out);
        Map<Hash, Long> copy = Map.copyOf(map.owners);
        data.writeInt(copy.size());
        for (Map.Entry<Hash, Long> entry : copy.entrySet()) {
            data.writeLong(entry.getKey().high());
            data.writeLong(entry.getKey().low());
            data.writeLong(entry.getValue());
        }
        data.flush();
    }

    @Override
    public HashedSeenSet readSnapshot(Map<String, String> parameters, InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        MapStore store = new MapStore();
        int count = data.readInt();
        if (count < 0) {
            throw new IOException("negative entry count " + count);
        }
        for (int i = 0; i < count; i++) {
            store.addHash(data.readLong(), data.readLong(), data.readLong());
        }
        return store;
    }

    @Override
    public long capacity(Map<String, String> parameters) {
        return Long.parseLong(parameters.get("capacity"));
    }

    /** Nothing reserved: the map holds only what a test puts in it. */
    @Override
    public long memoryBytes(Map<String, String> parameters) {
        return 0;
    }

    @Override
    public boolean mergeable() {
        return true;
    }

    @Override
    public void merge(HashedSeenSet target, HashedSeenSet source) {
        ((MapStore) source).owners.forEach((hash, owner) -> target.addHash(hash.high(), hash.low(), owner));
    }

    private record Hash(long high, long low) {}

    /** The store: exact, so every answer is predictable. */
    private static final class MapStore implements HashedSeenSet {
        private final Map<Hash, Long> owners = new ConcurrentHashMap<>();
        private final AtomicLong insertions = new AtomicLong();

        @Override
        public boolean checkHash(long high, long low) {
            return owners.containsKey(new Hash(high, low));
        }

        @Override
        public void addHash(long high, long low, long owner) {
            checkThenAddHash(high, low, owner);
        }

        @Override
        public Verdict checkThenAddHash(long high, long low, long owner) {
            Long previous = owners.putIfAbsent(new Hash(high, low), owner);
            if (previous == null) {
                insertions.incrementAndGet();
                return Verdict.NEW;
            }
            return owner != NO_OWNER && previous == owner ? Verdict.RETRY : Verdict.DUPLICATE;
        }

        @Override
        public boolean forgetHash(long high, long low, long owner) {
            Hash hash = new Hash(high, low);
            return owner == NO_OWNER ? owners.remove(hash) != null : owners.remove(hash, owner);
        }

        @Override
        public Guarantee guarantee() {
            return Guarantee.NEVER_FALSE_NEW;
        }

        @Override
        public SeenStats stats() {
            return new SeenStats(
                    "fixture",
                    Guarantee.NEVER_FALSE_NEW,
                    insertions.get(),
                    owners.size() * 48L,
                    new ErrorEstimate.Bloom(0.0, 0.0, 0.01));
        }
    }
}
