package dev.deja.cli;

import dev.deja.text.Units;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a memory size such as {@code 1g}, {@code 512m}, {@code 64k} or {@code 1073741824} (powers of 1024). */
final class ByteSizeConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        try {
            return Units.bytes(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
