package dev.deja.cli;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a memory size such as {@code 1g}, {@code 512m}, {@code 64k} or {@code 1073741824}. As for the JVM's
 * {@code -Xmx}, the units are powers of 1024 ({@code k}, {@code m}, {@code g}, {@code t}, optionally followed by
 * {@code b} or {@code ib}); a number without a unit is bytes.
 */
final class ByteSizeConverter implements ITypeConverter<Long> {

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(?:([kmgt])(?:i?b)?|b)?");

    @Override
    public Long convert(String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new TypeConversionException("'" + value + "' is not a memory size: use bytes or a number and a"
                    + " unit, one of k, m, g, t (powers of 1024, e.g. 512m, 1g)");
        }
        int power = m.group(2) == null ? 0 : "kmgt".indexOf(m.group(2)) + 1;
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(1024).pow(power));
        if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new TypeConversionException("'" + value + "' is too large a memory size");
        }
        long whole = bytes.longValue();
        if (whole <= 0) {
            throw new TypeConversionException("'" + value + "' must be at least one byte");
        }
        return whole;
    }
}
