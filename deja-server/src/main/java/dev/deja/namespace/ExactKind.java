package dev.deja.namespace;

import dev.deja.exact.ExactStoreBuilder;
import dev.deja.exact.IdFormat;
import dev.deja.text.Units;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code exact} kind: a windowed exact store on RocksDB ({@link dev.deja.exact.ExactStore}) in the namespace's
 * directory, made durable by RocksDB's write-ahead log rather than by deja's journal.
 *
 * <p>Parameters: {@code window} (default 24h; {@code none} for a store bounded by {@code maxBytes} alone),
 * {@code maxBytes} (disk bound, e.g. {@code 50g}; default none), {@code generations} (default 8),
 * {@code minWindow} (warn below this effective window), {@code idFormat} ({@code raw}, {@code hex}, {@code uuid}),
 * {@code refresh} (keep a key a new window from each duplicate, default false), {@code countDuplicates}
 * (default false), {@code values} (keep a small value and an expiry per key, for the Redis key-value commands;
 * default false), {@code maxValueBytes} (default 512), {@code blockCache} (default 64m) and {@code memtable}
 * (default 16m). Canonical values are
 * durations in their largest whole unit and sizes in bytes, with 0 or {@code none} for an absent bound.
 */
final class ExactKind implements StoreKind {

    static final String NONE = "none";
    private static final Set<String> KNOWN = Set.of("window", "maxBytes", "generations", "minWindow", "idFormat",
            "refresh", "countDuplicates", "blockCache", "memtable", "values", "maxValueBytes");

    @Override
    public String name() {
        return "exact";
    }

    @Override
    public Map<String, String> parameters(Map<String, String> raw) {
        KindParameters.onlyKnown(name(), raw, KNOWN);
        Duration window = optionalDuration(raw, "window", Duration.ofHours(24));
        long maxBytes = optionalBytes(raw, "maxBytes", 0);
        if (window == null && maxBytes == 0) {
            throw new IllegalArgumentException("exact needs a window, a maxBytes, or both (window=none needs maxBytes)");
        }
        Duration minWindow = optionalDuration(raw, "minWindow", null);
        if (minWindow != null && window != null && minWindow.compareTo(window) > 0) {
            throw new IllegalArgumentException("minWindow must be at most the window (" + text(window) + "), got "
                    + text(minWindow));
        }
        Map<String, String> canonical = new LinkedHashMap<>();
        canonical.put("window", window == null ? NONE : text(window));
        canonical.put("maxBytes", Long.toString(maxBytes));
        canonical.put("generations", Long.toString(KindParameters.longValue(raw, "generations", 2, 1024, 8)));
        canonical.put("minWindow", minWindow == null ? NONE : text(minWindow));
        canonical.put("idFormat", idFormat(raw.getOrDefault("idFormat", "raw")).name().toLowerCase(Locale.ROOT));
        canonical.put("refresh", Boolean.toString(KindParameters.bool(raw, "refresh", false)));
        canonical.put("countDuplicates", Boolean.toString(KindParameters.bool(raw, "countDuplicates", false)));
        canonical.put("values", Boolean.toString(KindParameters.bool(raw, "values", false)));
        canonical.put("maxValueBytes", Long.toString(KindParameters.longValue(raw, "maxValueBytes", 0, 1 << 20, 512)));
        canonical.put("blockCache", Long.toString(optionalBytes(raw, "blockCache", 64L << 20)));
        canonical.put("memtable", Long.toString(optionalBytes(raw, "memtable", 16L << 20)));
        return canonical;
    }

    @Override
    public long capacity(Map<String, String> parameters) {
        return -1;
    }

    /**
     * No heap reserved: the keys live on disk, and the in-heap key filters grow with the keys held (about 2 bytes
     * each), which no parameter bounds in advance; the heap left outside the namespace memory limit covers them.
     */
    @Override
    public long memoryBytes(Map<String, String> parameters) {
        return 0;
    }

    /** RocksDB's block cache and its memtables, native memory bounded by {@code blockCache} and {@code memtable}. */
    @Override
    public long nativeMemoryBytes(Map<String, String> parameters) {
        return Long.parseLong(parameters.get("blockCache"))
                + ExactStoreBuilder.MEMTABLES * Long.parseLong(parameters.get("memtable"));
    }

    @Override
    public NamespaceStore open(String namespace, Map<String, String> parameters, Path dir, Durability durability)
            throws IOException {
        return ExactNamespaceStore.open(namespace, parameters, dir, durability);
    }

    /** The window parameter of canonical parameters, or null for a size-only store. */
    static Duration duration(Map<String, String> parameters, String name) {
        String text = parameters.get(name);
        return NONE.equals(text) ? null : Units.duration(text);
    }

    private static IdFormat idFormat(String text) {
        try {
            return IdFormat.valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("idFormat must be one of raw, hex, uuid (got '" + text + "')");
        }
    }

    private static Duration optionalDuration(Map<String, String> raw, String name, Duration defaultValue) {
        String text = raw.get(name);
        if (text == null) {
            return defaultValue;
        }
        if (text.strip().equalsIgnoreCase(NONE) || text.strip().equals("0")) {
            return null;
        }
        try {
            return Units.duration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage());
        }
    }

    private static long optionalBytes(Map<String, String> raw, String name, long defaultValue) {
        String text = raw.get(name);
        if (text == null) {
            return defaultValue;
        }
        if (text.strip().equalsIgnoreCase(NONE) || text.strip().equals("0")) {
            return 0;
        }
        try {
            return Units.bytes(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage());
        }
    }

    /** A duration in its largest whole unit: 24h, 90m, 1500ms. */
    private static String text(Duration d) {
        long ms = d.toMillis();
        long[] units = {604_800_000L, 86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] names = {"w", "d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (ms % units[i] == 0) {
                return ms / units[i] + names[i];
            }
        }
        return ms + "ms";
    }
}
