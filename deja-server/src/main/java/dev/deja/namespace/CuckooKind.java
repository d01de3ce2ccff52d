package dev.deja.namespace;

import dev.deja.cuckoo.CuckooFilter;
import dev.deja.seen.HashedSeenSet;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code cuckoo} kind: a {@link CuckooFilter}, RedisBloom's deletable filter ({@code CF.*}), with its parameters
 * {@code capacity} (default 1024, RedisBloom's), {@code bucketsize} (2), {@code maxiterations} (20) and
 * {@code expansion} (1; 0 for a filter that never grows).
 *
 * <p>Its journal records are not idempotent: an add inserts one more copy of a key. So its snapshots and dumps are
 * written from a copy taken at the snapshot's journal position ({@link #capture}), and recovery replays each later
 * record exactly once (docs/DESIGN.md section 5). The memory reserved is the first table's; tables added as the filter
 * grows are not reserved against the server's memory limit, and a snapshot briefly holds a second copy of the tables.
 */
public final class CuckooKind implements SnapshotKind {

    static final String NAME = "cuckoo";
    private static final Set<String> KNOWN = Set.of("capacity", "bucketsize", "maxiterations", "expansion");

    /** A filter keeps no owners: RETRY is its answer for a key it cannot take (full, or unable to grow). */
    @Override
    public boolean retryMeansRefused() {
        return true;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, String> parameters(Map<String, String> raw) {
        KindParameters.onlyKnown(name(), raw, KNOWN);
        long capacity = KindParameters.longValue(raw, "capacity", 1, Long.MAX_VALUE, 1024);
        int bucketSize = (int) KindParameters.longValue(raw, "bucketsize", 1, CuckooFilter.MAX_BUCKET_SIZE, 2);
        int maxIterations = (int) KindParameters.longValue(raw, "maxiterations", 1, 65535, 20);
        int expansion = (int) KindParameters.longValue(raw, "expansion", 0, CuckooFilter.MAX_EXPANSION, 1);
        CuckooFilter.firstTableBytes(capacity, bucketSize); // refuses a first table over 2^30 slots
        Map<String, String> canonical = new LinkedHashMap<>();
        canonical.put("capacity", Long.toString(capacity));
        canonical.put("bucketsize", Integer.toString(bucketSize));
        canonical.put("maxiterations", Integer.toString(maxIterations));
        canonical.put("expansion", Integer.toString(expansion));
        return canonical;
    }

    @Override
    public HashedSeenSet create(Map<String, String> parameters) {
        return CuckooFilter.create(
                Long.parseLong(parameters.get("capacity")),
                Integer.parseInt(parameters.get("bucketsize")),
                Integer.parseInt(parameters.get("maxiterations")),
                Integer.parseInt(parameters.get("expansion")));
    }

    /** A copy of the filter taken under the journal's lock: the snapshot then matches its journal position exactly. */
    @Override
    public HashedSeenSet capture(HashedSeenSet store) {
        return ((CuckooFilter) store).copy();
    }

    @Override
    public void writeSnapshot(HashedSeenSet store, OutputStream out) throws IOException {
        ((CuckooFilter) store).writeTo(out);
    }

    @Override
    public HashedSeenSet readSnapshot(Map<String, String> parameters, InputStream in) throws IOException {
        CuckooFilter filter = CuckooFilter.readFrom(in);
        if (filter.capacity() != Long.parseLong(parameters.get("capacity"))
                || filter.bucketSize() != Integer.parseInt(parameters.get("bucketsize"))
                || filter.maxIterations() != Integer.parseInt(parameters.get("maxiterations"))
                || filter.expansion() != Integer.parseInt(parameters.get("expansion"))) {
            throw new IOException("snapshot holds a cuckoo filter of capacity=" + filter.capacity() + ", bucketsize="
                    + filter.bucketSize() + ", maxiterations=" + filter.maxIterations() + ", expansion="
                    + filter.expansion() + " but the namespace is " + parameters);
        }
        return filter;
    }

    @Override
    public long capacity(Map<String, String> parameters) {
        return Long.parseLong(parameters.get("capacity"));
    }

    /** The first table's fingerprints, 2 bytes a slot. */
    @Override
    public long memoryBytes(Map<String, String> parameters) {
        return CuckooFilter.firstTableBytes(
                Long.parseLong(parameters.get("capacity")), Integer.parseInt(parameters.get("bucketsize")));
    }

    /**
     * The cuckoo filter of a namespace of this kind, for what only it offers (counts, inserting copies); null for a
     * namespace of another kind.
     */
    public static CuckooFilter filter(Namespace namespace) {
        if (namespace.kind() instanceof CuckooKind && namespace.durableStore() instanceof JournaledStore journaled) {
            return (CuckooFilter) journaled.content();
        }
        return null;
    }
}
