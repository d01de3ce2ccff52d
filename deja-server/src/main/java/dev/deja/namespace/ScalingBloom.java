package dev.deja.namespace;

import dev.deja.bloom.ScalingBloomFilter;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code bloom} kind with an {@code expansion}: a {@link ScalingBloomFilter}, RedisBloom's scaling filter, which
 * adds a sub-filter {@code expansion} times larger whenever the newest is full, at half its error rate, so the
 * whole keeps {@code fpp}. {@code expansion 0} is RedisBloom's {@code NONSCALING}: one filter at {@code fpp} that
 * refuses new keys once it holds {@code capacity}. Each sub-filter after the first takes its memory from the server's
 * namespace memory limit when it is made; a sub-filter the limit has no room for is refused, and so is the key that
 * needed it.
 */
final class ScalingBloom {

    private static final Set<String> KNOWN = Set.of("capacity", "fpp", "expansion");

    private ScalingBloom() {}

    /** Whether these parameters (raw or canonical) ask for a scaling filter. */
    static boolean asked(Map<String, String> parameters) {
        return parameters.containsKey("expansion");
    }

    /** The canonical parameters: capacity, fpp and expansion. */
    static Map<String, String> parameters(Map<String, String> raw) {
        for (String name : raw.keySet()) {
            if (!KNOWN.contains(name)) {
                throw new IllegalArgumentException("a bloom namespace with an expansion takes capacity, fpp and"
                        + " expansion (got '" + name + "')");
            }
        }
        long capacity = KindParameters.longValue(raw, "capacity", 1, Long.MAX_VALUE, 1_000_000);
        double fpp = KindParameters.probability(raw, "fpp", 0.01);
        long expansion = KindParameters.longValue(raw, "expansion", 0, ScalingBloomFilter.MAX_EXPANSION, 2);
        Map<String, String> canonical = new LinkedHashMap<>();
        canonical.put("capacity", Long.toString(capacity));
        canonical.put("fpp", Double.toString(fpp));
        canonical.put("expansion", Long.toString(expansion));
        memoryBytes(canonical); // refuses a first sub-filter larger than the largest bloom filter
        return canonical;
    }

    static ScalingBloomFilter create(Map<String, String> parameters, ScalingBloomFilter.MemoryGate gate) {
        return ScalingBloomFilter.builder()
                .capacity(capacity(parameters))
                .fpp(fpp(parameters))
                .expansion(expansion(parameters))
                .memoryGate(gate)
                .build();
    }

    /** Reads a snapshot, refusing one of other settings than the namespace's. */
    static ScalingBloomFilter read(Map<String, String> parameters, InputStream in, ScalingBloomFilter.MemoryGate gate)
            throws IOException {
        ScalingBloomFilter filter = ScalingBloomFilter.readFrom(in, gate);
        if (filter.capacity() != capacity(parameters)
                || Double.compare(filter.targetFpp(), fpp(parameters)) != 0
                || filter.expansion() != expansion(parameters)) {
            filter.close();
            throw new IOException("snapshot holds a scaling bloom filter of capacity=" + filter.capacity() + ", fpp="
                    + filter.targetFpp() + ", expansion=" + filter.expansion() + " but the namespace is "
                    + parameters);
        }
        return filter;
    }

    /** The first sub-filter's bit array and block locks, when full; the later ones are reserved as they are made. */
    static long memoryBytes(Map<String, String> parameters) {
        try {
            return ScalingBloomFilter.firstFilterHeapBytes(
                    capacity(parameters), fpp(parameters), expansion(parameters));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "capacity " + capacity(parameters) + " at fpp " + fpp(parameters)
                            + " is too large for one bloom filter: " + e.getMessage(),
                    e);
        }
    }

    private static long capacity(Map<String, String> parameters) {
        return Long.parseLong(parameters.get("capacity"));
    }

    private static double fpp(Map<String, String> parameters) {
        return Double.parseDouble(parameters.get("fpp"));
    }

    private static int expansion(Map<String, String> parameters) {
        return Integer.parseInt(parameters.get("expansion"));
    }
}
