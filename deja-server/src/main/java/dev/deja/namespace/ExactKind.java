package dev.deja.namespace;

import static dev.deja.namespace.KindParameters.NONE;

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
 * <p>Parameters, in the store's own ranges ({@link ExactStoreBuilder}): {@code window} (default 24h, at least 1s;
 * {@code none} for a store bounded by {@code maxBytes} alone), {@code maxBytes} (disk bound, e.g. {@code 50g};
 * default none; for a new namespace at least {@code generations x memtable}), {@code generations} (2 to 1024,
 * default 8), {@code minWindow} (warn below this effective window; at least 1ms), {@code idFormat} ({@code raw},
 * {@code hex}, {@code uuid}), {@code refresh} (keep a key a new window from each duplicate, default false),
 * {@code countDuplicates} (default false), {@code values} (keep a small value and an expiry per key, for the Redis
 * key-value commands; default false), {@code maxValueBytes} (0 to 1m, default 512), {@code blockCache} (at least
 * 1m, default 64m) and {@code memtable} (64k to 16g, default 16m). Canonical values are durations in their
 * largest whole unit and sizes in bytes, with 0 or {@code none} for an absent bound.
 */
final class ExactKind implements StoreKind {

    private static final Set<String> KNOWN = Set.of(
            "window",
            "maxBytes",
            "generations",
            "minWindow",
            "idFormat",
            "refresh",
            "countDuplicates",
            "blockCache",
            "memtable",
            "values",
            "maxValueBytes");

    @Override
    public String name() {
        return "exact";
    }

    /** Checks every parameter against the exact store's own ranges, so that a store that could not open is refused. */
    @Override
    public Map<String, String> parameters(Map<String, String> raw) {
        KindParameters.onlyKnown(name(), raw, KNOWN);
        Duration window = optionalDuration(raw, "window", Duration.ofHours(24));
        long maxBytes = optionalBytes(raw, "maxBytes", 0);
        if (window == null && maxBytes == 0) {
            throw new IllegalArgumentException(
                    "exact needs a window, a maxBytes, or both (window=none needs maxBytes)");
        }
        checkDuration(raw, "window", window, ExactStoreBuilder.MIN_WINDOW, " with a maxBytes");
        Duration minWindow = optionalDuration(raw, "minWindow", null);
        checkDuration(raw, "minWindow", minWindow, Duration.ofMillis(1), "");
        if (minWindow != null && window != null && minWindow.compareTo(window) > 0) {
            throw new IllegalArgumentException(
                    "minWindow must be at most the window (" + Units.text(window) + "), got " + Units.text(minWindow));
        }
        Map<String, String> canonical = new LinkedHashMap<>();
        canonical.put("window", window == null ? NONE : Units.text(window));
        canonical.put("maxBytes", Long.toString(maxBytes));
        canonical.put(
                "generations",
                Long.toString(KindParameters.longValue(
                        raw, "generations", ExactStoreBuilder.MIN_GENERATIONS, ExactStoreBuilder.MAX_GENERATIONS, 8)));
        canonical.put("minWindow", minWindow == null ? NONE : Units.text(minWindow));
        canonical.put(
                "idFormat", idFormat(raw.getOrDefault("idFormat", "raw")).name().toLowerCase(Locale.ROOT));
        canonical.put("refresh", Boolean.toString(KindParameters.bool(raw, "refresh", false)));
        canonical.put("countDuplicates", Boolean.toString(KindParameters.bool(raw, "countDuplicates", false)));
        canonical.put("values", Boolean.toString(KindParameters.bool(raw, "values", false)));
        canonical.put(
                "maxValueBytes",
                Long.toString(sizeIn(raw, "maxValueBytes", 512, 0, ExactStoreBuilder.MAX_VALUE_BYTES)));
        canonical.put(
                "blockCache",
                Long.toString(
                        sizeIn(raw, "blockCache", 64L << 20, ExactStoreBuilder.MIN_BLOCK_CACHE_BYTES, Long.MAX_VALUE)));
        canonical.put(
                "memtable",
                Long.toString(sizeIn(
                        raw,
                        "memtable",
                        16L << 20,
                        ExactStoreBuilder.MIN_MEMTABLE_BYTES,
                        ExactStoreBuilder.MAX_MEMTABLE_BYTES)));
        return canonical;
    }

    /**
     * Refuses a size bound below one memtable per generation ({@link ExactStoreBuilder#smallestMaxBytes}), which
     * makes generations roll over every few keys. Only for new namespaces: one created before this rule keeps
     * loading.
     */
    @Override
    public void checkCreate(Map<String, String> parameters) {
        long maxBytes = Long.parseLong(parameters.get("maxBytes"));
        int generations = Integer.parseInt(parameters.get("generations"));
        long memtable = Long.parseLong(parameters.get("memtable"));
        long smallest = ExactStoreBuilder.smallestMaxBytes(generations, memtable);
        if (maxBytes > 0 && maxBytes < smallest) {
            throw new IllegalArgumentException("maxBytes must be at least generations x memtable = " + generations
                    + " x " + size(memtable) + " = " + size(smallest) + ", or none with a window (got "
                    + size(maxBytes) + "): each generation's share must hold one memtable; for a smaller bound,"
                    + " lower memtable (to " + size(ExactStoreBuilder.MIN_MEMTABLE_BYTES) + " at least) or"
                    + " generations (to " + ExactStoreBuilder.MIN_GENERATIONS + " at least)");
        }
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
            // zero or negative passes here: checkDuration refuses it naming the range
            return Units.anyDuration(text);
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

    /**
     * Refuses a duration below min or above the store's longest window (thousands of years, so a message names
     * it only to whoever asks for more); null (none) passes.
     */
    private static void checkDuration(
            Map<String, String> raw, String name, Duration value, Duration min, String noneNeeds) {
        // whole days, so that it reads well; the store's own bound is a fraction of a day longer
        Duration max = Duration.ofDays(ExactStoreBuilder.MAX_WINDOW.toDays());
        if (value != null && value.compareTo(min) < 0) {
            throw new IllegalArgumentException(name + " must be at least " + Units.text(min) + ", or none" + noneNeeds
                    + " (got " + raw.get(name).strip() + ")");
        }
        if (value != null && value.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + max.toDays() + "d (got "
                    + raw.get(name).strip() + ")");
        }
    }

    /** A size parameter in [min, max]; {@code 0} and {@code none} are 0, refused like any size below min. */
    private static long sizeIn(Map<String, String> raw, String name, long defaultValue, long min, long max) {
        long value = optionalBytes(raw, name, defaultValue);
        if (value < min || value > max) {
            throw new IllegalArgumentException(name
                    + (max == Long.MAX_VALUE
                            ? " must be at least " + size(min)
                            : " must be in [" + size(min) + ", " + size(max) + "]")
                    + " (got " + raw.get(name).strip() + ")");
        }
        return value;
    }

    /** A size as written in parameters: in its largest whole unit of k, m, g, t (powers of 1024), else in bytes. */
    private static String size(long bytes) {
        String[] units = {"t", "g", "m", "k"};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << (10 * (units.length - i));
            if (bytes >= unit && bytes % unit == 0) {
                return bytes / unit + units[i];
            }
        }
        return Long.toString(bytes);
    }
}
