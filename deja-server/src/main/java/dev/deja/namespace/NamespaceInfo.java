package dev.deja.namespace;

import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.SeenStats;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a namespace is and holds, as the admin API and {@code BF.INFO} report it.
 *
 * @param name       the namespace's name
 * @param kind       the store kind
 * @param parameters canonical parameters
 * @param capacity   the number of keys the store is sized for
 * @param stats      live statistics: guarantee, count, memory and error estimate
 */
public record NamespaceInfo(String name, String kind, Map<String, String> parameters, long capacity, SeenStats stats) {

    /**
     * The info as named fields in a fixed order (values are strings, numbers or nested maps), the one shape both
     * the HTTP JSON and the RESP map replies are rendered from.
     */
    public Map<String, Object> fields() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("name", name);
        fields.put("kind", kind);
        fields.put("parameters", parameters);
        fields.put("capacity", capacity);
        fields.put("count", stats.insertions());
        fields.put("memoryBytes", stats.memoryBytes());
        Map<String, Object> guarantee = new LinkedHashMap<>();
        guarantee.put("name", stats.guarantee().name());
        guarantee.put("mayWronglySay", stats.guarantee().mayWronglySay());
        guarantee.put("neverSays", stats.guarantee().neverSays());
        fields.put("guarantee", guarantee);
        fields.put("errorEstimate", estimate(stats.estimate()));
        return fields;
    }

    private static Map<String, Object> estimate(ErrorEstimate estimate) {
        Map<String, Object> fields = new LinkedHashMap<>();
        switch (estimate) {
            case ErrorEstimate.Bloom b -> {
                fields.put("fillRatio", b.fillRatio());
                fields.put("currentFpp", b.currentFpp());
                fields.put("targetFpp", b.targetFpp());
            }
            case ErrorEstimate.Recent r -> {
                fields.put("keysHeldAt90Percent", r.keysHeldAt90Percent());
                fields.put("ways", r.ways());
            }
            case ErrorEstimate.Exact e ->
                fields.put("effectiveWindowSeconds", e.effectiveWindow().toSeconds());
            case ErrorEstimate.Cuckoo c -> {
                fields.put("load", c.load());
                fields.put("currentFpp", c.currentFpp());
                fields.put("targetFpp", c.targetFpp());
            }
        }
        return fields;
    }
}
