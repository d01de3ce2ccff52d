package dev.deja.namespace;

import dev.deja.bloom.BloomFilter;
import dev.deja.bloom.ScalingBloomFilter;
import dev.deja.bloom.WindowedBloomFilter;
import dev.deja.seen.HashedSeenSet;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code bloom} kind: a {@link BloomFilter}, sized either by {@code capacity} and {@code fpp} or by an explicit
 * shape, {@code bits} with {@code k} and/or {@code capacity} (the default filter of the bloom HTTP server whose
 * protocol deja follows, Snawoot/bloom, is {@code bits=8589934592,k=10}).
 *
 * <p>With a {@code window} it is a windowed bloom filter instead ({@link WindowedBloom}): keys age out with their
 * generation. With an {@code expansion} it is a scaling filter ({@link ScalingBloom}), RedisBloom's: it grows by
 * sub-filters as keys arrive, within the server's memory limit ({@link #growingWithin}).
 *
 * <p>The canonical parameters are the resolved shape ({@code bits}, {@code k}, {@code capacity}), so two namespaces
 * asked for in different words but with the same shape can be merged, and a reopened namespace is rebuilt exactly.
 */
public final class BloomKind implements SnapshotKind {

    private static final Set<String> KNOWN = Set.of("capacity", "fpp", "bits", "k");

    private final ScalingBloomFilter.MemoryGate growth;

    /** The kind whose scaling filters grow without limit; a registry uses {@link #growingWithin} its own. */
    BloomKind() {
        this(ScalingBloomFilter.MemoryGate.UNLIMITED);
    }

    private BloomKind(ScalingBloomFilter.MemoryGate growth) {
        this.growth = growth;
    }

    /** The same kind, whose scaling filters take the memory of each new sub-filter through {@code gate}. */
    BloomKind growingWithin(ScalingBloomFilter.MemoryGate gate) {
        return new BloomKind(gate);
    }

    /** The namespace's scaling bloom filter, or null when it holds another store. */
    public static ScalingBloomFilter scaling(Namespace namespace) {
        if (namespace.kind() instanceof BloomKind
                && namespace.durableStore() instanceof JournaledStore journaled
                && journaled.content() instanceof CountedAdds counted
                && counted.filter() instanceof ScalingBloomFilter filter) {
            return filter;
        }
        return null;
    }

    /** A filter keeps no owners: RETRY is its answer for a key it cannot take (full, or unable to grow). */
    @Override
    public boolean retryMeansRefused() {
        return true;
    }

    @Override
    public String name() {
        return "bloom";
    }

    @Override
    public Map<String, String> parameters(Map<String, String> raw) {
        if (WindowedBloom.asked(raw)) {
            return WindowedBloom.parameters(raw);
        }
        if (ScalingBloom.asked(raw)) {
            return ScalingBloom.parameters(raw);
        }
        // names every form's parameters: generations without a window is as unknown here as a typo
        KindParameters.onlyKnown(
                name(),
                raw,
                KNOWN,
                "bits, capacity, fpp, k; with a window: capacity, fpp, window, generations; with an expansion:"
                        + " capacity, fpp, expansion");
        BloomFilter.Builder builder = BloomFilter.builder();
        if (raw.containsKey("bits")) {
            builder.bits(KindParameters.longValue(raw, "bits", 512, 1L << 40, 0));
            if (raw.containsKey("k")) {
                builder.hashes((int) KindParameters.longValue(raw, "k", 1, 32, 0));
            }
            if (raw.containsKey("capacity")) {
                builder.capacity(KindParameters.longValue(raw, "capacity", 1, Long.MAX_VALUE, 0));
            }
            if (raw.containsKey("fpp")) {
                throw new IllegalArgumentException("fpp follows from bits, k and capacity: give either capacity and"
                        + " fpp, or bits with k and/or capacity");
            }
        } else {
            if (raw.containsKey("k")) {
                throw new IllegalArgumentException(
                        "k needs bits: give either capacity and fpp, or bits with k and/or" + " capacity");
            }
            builder.capacity(KindParameters.longValue(raw, "capacity", 1, Long.MAX_VALUE, 1_000_000))
                    .fpp(KindParameters.probability(raw, "fpp", 0.01));
        }
        BloomFilter shape = builder.build();
        Map<String, String> canonical = new LinkedHashMap<>();
        canonical.put("bits", Long.toString(shape.bits()));
        canonical.put("k", Integer.toString(shape.hashes()));
        canonical.put("capacity", Long.toString(shape.capacity()));
        return canonical;
    }

    @Override
    public HashedSeenSet create(Map<String, String> parameters) {
        return new CountedAdds(filter(parameters), 0);
    }

    private HashedSeenSet filter(Map<String, String> parameters) {
        if (WindowedBloom.asked(parameters)) {
            return WindowedBloom.create(parameters);
        }
        if (ScalingBloom.asked(parameters)) {
            return ScalingBloom.create(parameters, growth);
        }
        return BloomFilter.builder()
                .bits(Long.parseLong(parameters.get("bits")))
                .hashes(Integer.parseInt(parameters.get("k")))
                .capacity(Long.parseLong(parameters.get("capacity")))
                .build();
    }

    @Override
    public void writeSnapshot(HashedSeenSet counted, OutputStream out) throws IOException {
        ((CountedAdds) counted).writeHeader(out);
        HashedSeenSet store = ((CountedAdds) counted).filter();
        if (store instanceof WindowedBloomFilter windowed) {
            windowed.writeTo(out);
        } else if (store instanceof ScalingBloomFilter scaling) {
            scaling.writeTo(out);
        } else {
            ((BloomFilter) store).writeTo(out);
        }
    }

    @Override
    public HashedSeenSet readSnapshot(Map<String, String> parameters, InputStream in) throws IOException {
        return CountedAdds.read(in, filterIn -> readFilter(parameters, filterIn));
    }

    private HashedSeenSet readFilter(Map<String, String> parameters, InputStream in) throws IOException {
        if (WindowedBloom.asked(parameters)) {
            return WindowedBloom.read(parameters, in);
        }
        if (ScalingBloom.asked(parameters)) {
            return ScalingBloom.read(parameters, in, growth);
        }
        BloomFilter filter = BloomFilter.readFrom(in);
        if (filter.bits() != Long.parseLong(parameters.get("bits"))
                || filter.hashes() != Integer.parseInt(parameters.get("k"))) {
            throw new IOException("snapshot holds a filter of bits=" + filter.bits() + ", k=" + filter.hashes()
                    + " but the namespace is " + parameters);
        }
        return filter;
    }

    @Override
    public long capacity(Map<String, String> parameters) {
        // the windowed filter's capacity is the keys it always holds, as the plain filter's is
        return Long.parseLong(parameters.get("capacity"));
    }

    /**
     * The bit array, a little over {@code bits / 8} bytes allocated as it fills, and the filter's 64 KiB of block
     * locks ({@link BloomFilter#heapBytes}).
     */
    @Override
    public long memoryBytes(Map<String, String> parameters) {
        if (WindowedBloom.asked(parameters)) {
            return WindowedBloom.memoryBytes(parameters);
        }
        if (ScalingBloom.asked(parameters)) {
            return ScalingBloom.memoryBytes(parameters);
        }
        return BloomFilter.heapBytes(Long.parseLong(parameters.get("bits")));
    }

    /**
     * Two Bloom filters of one shape merge exactly: the union's bits are the OR of theirs; scaling filters sub-filter
     * by sub-filter ({@link ScalingBloomFilter#mergeFrom}); not with a window, whose generations age on their own
     * clocks.
     */
    @Override
    public boolean mergeable() {
        return true;
    }

    @Override
    public void merge(HashedSeenSet target, HashedSeenSet source) {
        if (((CountedAdds) target).filter() instanceof ScalingBloomFilter into
                && ((CountedAdds) source).filter() instanceof ScalingBloomFilter from) {
            into.mergeFrom(from);
            return;
        }
        if (!(((CountedAdds) target).filter() instanceof BloomFilter into)
                || !(((CountedAdds) source).filter() instanceof BloomFilter from)) {
            throw new UnsupportedOperationException(
                    "bloom namespaces with a window cannot be merged: their generations age out on their own clocks");
        }
        into.mergeFrom(from);
    }
}
