package dev.deja.kafka.worker;

import dev.deja.kafka.IdSource;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli's converters for the worker's own option types. */
final class Converters {

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private Converters() {}

    /** A positive duration: {@code 500ms}, {@code 30s}, {@code 15m}, {@code 24h}, {@code 7d}, or ISO-8601. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String text = value.strip().toLowerCase(Locale.ROOT);
            Matcher m = DURATION.matcher(text);
            Duration d;
            try {
                if (m.matches()) {
                    long n = Long.parseLong(m.group(1));
                    d = switch (m.group(2)) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s" -> Duration.ofSeconds(n);
                        case "m" -> Duration.ofMinutes(n);
                        case "h" -> Duration.ofHours(n);
                        default -> Duration.ofDays(n);
                    };
                } else {
                    d = Duration.parse(text.toUpperCase(Locale.ROOT));
                }
            } catch (RuntimeException e) {
                throw new TypeConversionException("'" + value + "' is not a duration (500ms, 30s, 15m, 24h, 7d, PT1H)");
            }
            if (d.isNegative() || d.isZero()) {
                throw new TypeConversionException("'" + value + "' must be a positive duration");
            }
            return d;
        }
    }

    /** An id source: {@code key}, {@code header:NAME}, {@code json:PATH} or {@code hash}. */
    static final class IdSourceConverter implements ITypeConverter<IdSource> {
        @Override
        public IdSource convert(String value) {
            try {
                return IdSource.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code exactly-once} or {@code at-least-once}. */
    static final class GuaranteeConverter implements ITypeConverter<Guarantee> {
        @Override
        public Guarantee convert(String value) {
            try {
                return Guarantee.of(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
