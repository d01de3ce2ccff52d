package dev.deja.kafka;

import java.util.Locale;
import java.util.Objects;

/**
 * Where a record's id comes from: its key, a header, a field of its JSON value, or the 128-bit hash of its value's
 * bytes (de-duplication by content). An immutable description; {@link Dedup} binds it to the stream's serdes.
 *
 * <p>An id is the bytes found there: a key or a value serialized by the stream's serde, a header's value, or a JSON
 * field's text (a string field's characters, a number's or boolean's literal, both in UTF-8). A record whose source is
 * absent, null or empty, or whose value is not JSON or has no such field, has no id, and goes the way
 * {@link MissingIdPolicy} says.
 */
public final class IdSource {

    /** The kinds of source. */
    public enum Kind {
        /** The record's key, serialized. */
        KEY,
        /** The value of a header, the last one of that name. */
        HEADER,
        /** A field of the record's value read as JSON, named by a dotted path such as {@code context.messageId}. */
        JSON_FIELD,
        /** The XXH3-128 hash of the value's serialized bytes: two records with the same bytes are duplicates. */
        VALUE_HASH
    }

    private static final IdSource KEY = new IdSource(Kind.KEY, "");
    private static final IdSource VALUE_HASH = new IdSource(Kind.VALUE_HASH, "");

    private final Kind kind;
    private final String argument;

    private IdSource(Kind kind, String argument) {
        this.kind = kind;
        this.argument = argument;
    }

    /** The record's key as the id. */
    public static IdSource key() {
        return KEY;
    }

    /** The value of the header {@code name} as the id. */
    public static IdSource header(String name) {
        return new IdSource(Kind.HEADER, nonBlank("header name", name));
    }

    /**
     * A field of the JSON value as the id, named by a dotted path ({@code messageId}, {@code context.messageId}); a
     * field whose name holds a dot cannot be named.
     */
    public static IdSource jsonField(String path) {
        nonBlank("JSON path", path);
        for (String part : path.split("\\.", -1)) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException("JSON path '" + path + "' has an empty field name");
            }
        }
        return new IdSource(Kind.JSON_FIELD, path);
    }

    /** The 128-bit hash of the value's bytes as the id: records with the same content are duplicates. */
    public static IdSource valueHash() {
        return VALUE_HASH;
    }

    /**
     * Reads the form {@link #toString()} writes: {@code key}, {@code header:NAME}, {@code json:PATH} or {@code hash}.
     *
     * @throws IllegalArgumentException naming the forms, for any other text
     */
    public static IdSource parse(String text) {
        Objects.requireNonNull(text, "text");
        int colon = text.indexOf(':');
        String prefix = (colon < 0 ? text : text.substring(0, colon)).toLowerCase(Locale.ROOT);
        String rest = colon < 0 ? null : text.substring(colon + 1);
        IdSource parsed = switch (prefix) {
            case "key" -> rest == null ? key() : null;
            case "hash" -> rest == null ? valueHash() : null;
            case "header" -> rest == null ? null : header(rest);
            case "json" -> rest == null ? null : jsonField(rest);
            default -> null;
        };
        if (parsed != null) {
            return parsed;
        }
        throw new IllegalArgumentException(
                "id source '" + text + "' is none of key, header:NAME, json:PATH (json:context.messageId) or hash");
    }

    /** The kind of source. */
    public Kind kind() {
        return kind;
    }

    /** The header's name or the JSON path; empty for {@link Kind#KEY} and {@link Kind#VALUE_HASH}. */
    public String argument() {
        return argument;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdSource other && kind == other.kind && argument.equals(other.argument);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + argument.hashCode();
    }

    /** The form {@link #parse} reads. */
    @Override
    public String toString() {
        return switch (kind) {
            case KEY -> "key";
            case HEADER -> "header:" + argument;
            case JSON_FIELD -> "json:" + argument;
            case VALUE_HASH -> "hash";
        };
    }

    private static String nonBlank(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        return value;
    }
}
