package dev.deja.namespace;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A namespace's kind and canonical parameters, as its metadata file {@code <data>/<name>/namespace.properties} holds
 * them, and a dump's header too ({@link NamespaceDumps}): Java properties {@code name}, {@code kind} and one
 * {@code param.<parameter>} per parameter.
 *
 * @param kind       the namespace's store kind
 * @param parameters its canonical parameters ({@link StoreKind#parameters})
 * @param expiresAtMillis when the whole namespace is dropped ({@code EXPIRE} on its name), epoch milliseconds, or
 *                   {@link Namespace#NO_EXPIRY}
 */
record NamespaceMetadata(StoreKind kind, Map<String, String> parameters, long expiresAtMillis) {

    /** Metadata of a namespace that does not expire. */
    NamespaceMetadata(StoreKind kind, Map<String, String> parameters) {
        this(kind, parameters, Namespace.NO_EXPIRY);
    }

    /** The same metadata, expiring at {@code expiresAtMillis} ({@link Namespace#NO_EXPIRY}: never). */
    NamespaceMetadata expiringAt(long expiresAtMillis) {
        return new NamespaceMetadata(kind, parameters, expiresAtMillis);
    }

    private static final Logger LOG = LoggerFactory.getLogger(NamespaceMetadata.class);

    /** The metadata file's name; everything else in a namespace's directory is its store's. */
    static final String FILE = "namespace.properties";

    private static final String TEMPORARY_FILE = FILE + ".tmp";
    private static final String KIND = "kind";
    private static final String PARAMETER_PREFIX = "param.";
    private static final String EXPIRES_AT = "expiresAt";

    /** The properties naming the namespace, its kind and each of its parameters. */
    Properties properties(String name) {
        Properties metadata = new Properties();
        metadata.setProperty("name", name);
        metadata.setProperty(KIND, kind.name());
        Map<String, String> ordered = new LinkedHashMap<>(parameters);
        ordered.forEach((key, value) -> metadata.setProperty(PARAMETER_PREFIX + key, value));
        if (expiresAtMillis != Namespace.NO_EXPIRY) {
            metadata.setProperty(EXPIRES_AT, Long.toString(expiresAtMillis));
        }
        return metadata;
    }

    /**
     * Writes the metadata file into the namespace's directory through a temporary file renamed into place, so that
     * the file is never seen half written.
     */
    void write(Path dir, String name) throws IOException {
        Path tmp = dir.resolve(TEMPORARY_FILE);
        try (OutputStream out = Files.newOutputStream(tmp)) {
            properties(name).store(out, "deja namespace");
        }
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Whether the directory holds a metadata file, and so is a namespace's. */
    static boolean isIn(Path dir) {
        return Files.isRegularFile(dir.resolve(FILE));
    }

    /**
     * Whether the directory is a namespace's that can be loaded: it holds a metadata file and its name is one the API
     * accepts. One it refuses (made by hand: {@code bad name!}, {@code .hidden}) could be neither used nor deleted,
     * only hold memory: it is skipped with a warning and left as it is.
     */
    static boolean loadable(Path dir) {
        if (!isIn(dir)) {
            return false;
        }
        try {
            Namespace.checkName(dir.getFileName().toString());
            return true;
        } catch (IllegalArgumentException e) {
            LOG.warn("{} skipped: not loaded as a namespace, its files are left as they are ({})", dir, e.getMessage());
            return false;
        }
    }

    /** Deletes the metadata file, and the temporary one a write may have left, from the directory; nothing else. */
    static void delete(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(TEMPORARY_FILE));
        Files.deleteIfExists(dir.resolve(FILE));
    }

    /**
     * Reads the metadata file of the namespace kept in {@code dir}.
     *
     * @throws IllegalArgumentException when the file cannot be read, names no kind or an unknown one, or holds
     *                                  parameters the kind refuses; the message names the namespace and the file, so
     *                                  that whoever finds a server refusing to start knows which file to look at
     */
    static NamespaceMetadata read(Path dir, StoreKinds kinds) {
        Path file = dir.resolve(FILE);
        String name = dir.getFileName().toString();
        Properties metadata = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            metadata.load(in);
        } catch (IOException | IllegalArgumentException e) { // IllegalArgumentException: a malformed \\uXXXX
            throw cannotLoad(name, file, "cannot be read: " + e, e);
        }
        String kindName = kindName(metadata);
        if (kindName == null) {
            throw cannotLoad(
                    name,
                    file,
                    (metadata.isEmpty() ? "is empty or holds no property" : "has no '" + KIND + "' property")
                            + "; it must name the kind, one of " + kinds.names(),
                    null);
        }
        try {
            StoreKind kind = kinds.get(kindName);
            return new NamespaceMetadata(kind, kind.parameters(parameters(metadata)), expiresAt(metadata));
        } catch (IllegalArgumentException e) {
            throw cannotLoad(name, file, e.getMessage(), e);
        }
    }

    private static long expiresAt(Properties metadata) {
        String text = metadata.getProperty(EXPIRES_AT);
        if (text == null) {
            return Namespace.NO_EXPIRY;
        }
        try {
            long at = Long.parseLong(text.strip());
            if (at <= 0) {
                throw new NumberFormatException("not positive");
            }
            return at;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    EXPIRES_AT + " must be a time in epoch milliseconds (got '" + text + "')", e);
        }
    }

    /** The name of the kind the properties give, or null when they give none. */
    static String kindName(Properties metadata) {
        return metadata.getProperty(KIND);
    }

    /** The parameters the properties give, raw, by name. */
    static Map<String, String> parameters(Properties metadata) {
        Map<String, String> parameters = new TreeMap<>();
        for (String key : metadata.stringPropertyNames()) {
            if (key.startsWith(PARAMETER_PREFIX)) {
                parameters.put(key.substring(PARAMETER_PREFIX.length()), metadata.getProperty(key));
            }
        }
        return parameters;
    }

    private static IllegalArgumentException cannotLoad(String name, Path file, String problem, Exception cause) {
        return new IllegalArgumentException(
                "namespace '" + name + "' cannot be loaded: " + file + ": " + problem, cause);
    }
}
