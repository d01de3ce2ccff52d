package dev.deja.namespace;

import dev.deja.text.Units;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads typed values out of a namespace's string parameters, for {@link StoreKind}s: range-checked out of raw
 * parameters, or as canonical parameters write them.
 */
public final class KindParameters {

    /** How canonical parameters write an absent bound, such as an exact store's {@code window=none}. */
    static final String NONE = "none";

    private KindParameters() {}

    /** Rejects any parameter whose name is not among the allowed ones. */
    public static void onlyKnown(String kind, Map<String, String> raw, Set<String> allowed) {
        onlyKnown(kind, raw, allowed, String.join(", ", new TreeSet<>(allowed)));
    }

    /** Rejects any parameter whose name is not among the allowed ones, saying which are known in {@code known}. */
    static void onlyKnown(String kind, Map<String, String> raw, Set<String> allowed, String known) {
        for (String name : raw.keySet()) {
            if (!allowed.contains(name)) {
                throw new IllegalArgumentException(
                        "unknown parameter '" + name + "' for kind " + kind + " (known: " + known + ")");
            }
        }
    }

    /** The parameter as a long in [min, max], or the default when absent. */
    public static long longValue(Map<String, String> raw, String name, long min, long max, long defaultValue) {
        String text = raw.get(name);
        if (text == null) {
            return defaultValue;
        }
        long value;
        try {
            value = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    name + " must be an integer in [" + min + ", " + max + "] (got '" + text + "')");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "] (got " + value + ")");
        }
        return value;
    }

    /** The parameter as a probability in the open interval (0, 1), or the default when absent. */
    public static double probability(Map<String, String> raw, String name, double defaultValue) {
        String text = raw.get(name);
        if (text == null) {
            return defaultValue;
        }
        double value;
        try {
            value = Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    name + " must be a number in the open interval (0, 1) (got '" + text + "')");
        }
        if (!(value > 0.0 && value < 1.0)) {
            throw new IllegalArgumentException(name + " must be in the open interval (0, 1) (got " + text + ")");
        }
        return value;
    }

    /** A duration of canonical parameters, or null for {@link #NONE}. */
    static Duration canonicalDuration(Map<String, String> canonical, String name) {
        String text = canonical.get(name);
        return NONE.equals(text) ? null : Units.duration(text);
    }

    /** The parameter as a boolean ({@code true/yes/1}, {@code false/no/0}), or the default when absent. */
    public static boolean bool(Map<String, String> raw, String name, boolean defaultValue) {
        String text = raw.get(name);
        if (text == null) {
            return defaultValue;
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false (got '" + text + "')");
        };
    }
}
