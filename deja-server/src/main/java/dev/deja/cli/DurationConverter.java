package dev.deja.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a duration such as {@code 3600s}, {@code 30m}, {@code 1h}, {@code 7d}, {@code 1.5h} or ISO-8601 {@code PT1H}. */
final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d|w)");

    @Override
    public Duration convert(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(text);
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
                throw new TypeConversionException("'" + value + "' is too long a duration");
            }
            d = Duration.ofNanos(nanos.longValue());
        } else if (text.startsWith("p")) {
            try {
                d = Duration.parse(text.toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw invalid(value);
            }
        } else {
            throw invalid(value);
        }
        if (d.isNegative() || d.isZero()) {
            throw new TypeConversionException("'" + value + "' must be a positive duration");
        }
        return d;
    }

    private static TypeConversionException invalid(String value) {
        return new TypeConversionException("'" + value + "' is not a duration: use a number and a unit,"
                + " one of ms, s, m, h, d, w (e.g. 3600s, 30m, 1h, 7d)");
    }
}
