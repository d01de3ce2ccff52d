package dev.deja.cli;

import dev.deja.text.Units;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a duration such as {@code 3600s}, {@code 30m}, {@code 1h}, {@code 7d}, {@code 1.5h} or ISO-8601 {@code PT1H}.
 */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        try {
            return Units.duration(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
