package dev.deja.text;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the durations and sizes people write ({@code 30m}, {@code 24h}, {@code 512m}, {@code 50g}), one parser for
 * the command line, the config file and namespace parameters, so every place accepts the same spellings.
 */
public final class Units {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d|w)");
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(?:([kmgt])(?:i?b)?|b)?");

    private Units() {}

    /**
     * A positive duration such as {@code 3600s}, {@code 30m}, {@code 1h}, {@code 7d}, {@code 1.5h} or ISO-8601
     * {@code PT1H}.
     *
     * @throws IllegalArgumentException saying what is accepted
     */
    public static Duration duration(String value) {
        Duration d = anyDuration(value);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("'" + value + "' must be a positive duration");
        }
        return d;
    }

    /**
     * A duration in the spellings {@link #duration} reads, zero ({@code 0s}) and negative ISO-8601 ones
     * ({@code PT-1S}) included, for a caller that refuses them with a range of its own.
     *
     * @throws IllegalArgumentException saying what is accepted
     */
    public static Duration anyDuration(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(text);
        Duration d;
        if (m.matches()) {
            long unitNanos = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                case "d" -> 86_400_000_000_000L;
                default -> 604_800_000_000_000L; // w
            };
            BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos));
            if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
                throw new IllegalArgumentException("'" + value + "' is too long a duration");
            }
            d = Duration.ofNanos(nanos.longValue());
        } else if (text.startsWith("p")) {
            try {
                d = Duration.parse(text.toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw notADuration(value);
            }
        } else {
            throw notADuration(value);
        }
        return d;
    }

    /** A duration in its largest whole unit, as {@link #duration} reads it back: 24h, 90m, 1500ms. */
    public static String text(Duration d) {
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

    /**
     * A size of at least one byte such as {@code 1g}, {@code 512m}, {@code 64k} or {@code 1073741824}. As for the
     * JVM's {@code -Xmx}, the units are powers of 1024 ({@code k}, {@code m}, {@code g}, {@code t}, optionally
     * followed by {@code b} or {@code ib}); a number without a unit is bytes.
     *
     * @throws IllegalArgumentException saying what is accepted
     */
    public static long bytes(String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a size: use bytes or a number and a unit, one"
                    + " of k, m, g, t (powers of 1024, e.g. 512m, 1g)");
        }
        int power = m.group(2) == null ? 0 : "kmgt".indexOf(m.group(2)) + 1;
        BigDecimal bytes =
                new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(1024).pow(power));
        if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("'" + value + "' is too large a size");
        }
        long whole = bytes.longValue();
        if (whole <= 0) {
            throw new IllegalArgumentException("'" + value + "' must be at least one byte");
        }
        return whole;
    }

    /**
     * A size in binary units with {@code decimals} decimals, such as {@code 1.0 GiB} or {@code 512.00 MiB}; below
     * 1 KiB, {@code 900 bytes}.
     */
    public static String binary(long bytes, int decimals) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%." + decimals + "f %s", value, units[unit]);
    }

    private static IllegalArgumentException notADuration(String value) {
        return new IllegalArgumentException("'" + value + "' is not a duration: use a number and a unit, one of ms,"
                + " s, m, h, d, w (e.g. 3600s, 30m, 1h, 7d)");
    }
}
