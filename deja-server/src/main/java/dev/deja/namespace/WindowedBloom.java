package dev.deja.namespace;

import dev.deja.bloom.BloomFilter;
import dev.deja.bloom.WindowedBloomFilter;
import dev.deja.sizing.BloomSizing;
import dev.deja.text.Units;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code bloom} kind with a {@code window}: a {@link WindowedBloomFilter}, rotating generations of bloom filters
 * so that a key ages out with its generation, at least {@code window} after it was last recorded and less than
 * {@code window * G / (G - 1)} after, while the false-positive probability over all generations stays at most
 * {@code fpp}. Sized by {@code capacity} (keys always held, whatever the rate) and {@code fpp}; {@code generations}
 * (G, default 4, 2 to 64) trades memory for lookups. Recording a key again refreshes it.
 */
final class WindowedBloom {

    private static final Set<String> KNOWN = Set.of("capacity", "fpp", "window", "generations");

    private WindowedBloom() {}

    /** Whether these parameters (raw or canonical) ask for a window. */
    static boolean asked(Map<String, String> parameters) {
        return parameters.containsKey("window");
    }

    /** The canonical parameters: capacity, fpp, window (in its largest whole unit) and generations. */
    static Map<String, String> parameters(Map<String, String> raw) {
        for (String name : raw.keySet()) {
            if (!KNOWN.contains(name)) {
                throw new IllegalArgumentException("a bloom namespace with a window takes capacity, fpp, window and"
                        + " generations (got '" + name + "')");
            }
        }
        long capacity = KindParameters.longValue(raw, "capacity", 1, Long.MAX_VALUE, 1_000_000);
        double fpp = KindParameters.probability(raw, "fpp", 0.01);
        Duration window;
        try {
            window = Units.duration(raw.get("window"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("window: " + e.getMessage(), e);
        }
        int generations = (int) KindParameters.longValue(raw, "generations", 2, 64, 4);
        Map<String, String> canonical = new LinkedHashMap<>();
        canonical.put("capacity", Long.toString(capacity));
        canonical.put("fpp", Double.toString(fpp));
        canonical.put("window", Units.text(window));
        canonical.put("generations", Integer.toString(generations));
        create(canonical); // refuses a window shorter than a millisecond per generation, or generations too large
        return canonical;
    }

    static WindowedBloomFilter create(Map<String, String> parameters) {
        return WindowedBloomFilter.builder()
                .capacity(Long.parseLong(parameters.get("capacity")))
                .fpp(Double.parseDouble(parameters.get("fpp")))
                .window(Units.duration(parameters.get("window")))
                .generations(Integer.parseInt(parameters.get("generations")))
                .build();
    }

    /** Reads a snapshot, refusing one of another shape than the namespace's. */
    static WindowedBloomFilter read(Map<String, String> parameters, InputStream in) throws IOException {
        WindowedBloomFilter filter = WindowedBloomFilter.readFrom(in);
        WindowedBloomFilter expected = create(parameters);
        if (filter.capacity() != expected.capacity()
                || filter.generations() != expected.generations()
                || !filter.window().equals(expected.window())
                || Double.compare(filter.targetFpp(), expected.targetFpp()) != 0) {
            throw new IOException("snapshot holds a windowed bloom filter of capacity=" + filter.capacity() + ", fpp="
                    + filter.targetFpp() + ", window=" + filter.window() + ", generations=" + filter.generations()
                    + " but the namespace is " + parameters);
        }
        return filter;
    }

    /** Every generation's bit array and block locks, as when each is full. */
    static long memoryBytes(Map<String, String> parameters) {
        int generations = Integer.parseInt(parameters.get("generations"));
        long perGeneration = Math.ceilDiv(Long.parseLong(parameters.get("capacity")), generations - 1);
        long bits = BloomSizing.forCapacity(perGeneration, Double.parseDouble(parameters.get("fpp")) / generations)
                .bits();
        return generations * BloomFilter.heapBytes(bits);
    }
}
