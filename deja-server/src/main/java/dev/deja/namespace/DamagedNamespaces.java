package dev.deja.namespace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespaces found in the data dir that could not be opened (a damaged snapshot no journal can make up for, an
 * unreadable file, a broken metadata file): as Redis does with a damaged file, they are not served, while the others
 * are. Each is reported with the reason its open failed, which names the file, until an operator resets it.
 */
final class DamagedNamespaces {

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private static final Logger log = LoggerFactory.getLogger(DamagedNamespaces.class);

    private final ConcurrentHashMap<String, DamagedNamespace> byName = new ConcurrentHashMap<>();

    /** Opens a namespace's directory with the registry's memory reservations, as at start. */
    interface Loader {
        Namespace load(Path dir) throws IOException;
    }

    /**
     * Records a namespace found at start that could not be opened, and logs it with what brings it back: a reset
     * when its metadata can be read by {@code kinds}, without which it can only be deleted.
     */
    void failedToOpen(Path dir, Throwable cause, StoreKinds kinds) {
        String name = dir.getFileName().toString();
        boolean resettable = metadataReadable(dir, kinds);
        add(name, dir, cause, resettable);
        log.error(
                "namespace '{}' is not served: it could not be opened ({}); {}",
                name,
                cause.getMessage(),
                resettable
                        ? "DJ.RESET or POST /namespaces/" + name + "/reset brings it back"
                        : "its metadata cannot be read, so it cannot be reset; DJ.DROP or DELETE /namespaces/" + name
                                + " deletes it",
                cause);
    }

    /**
     * Brings a damaged namespace back, as {@code from} says: its metadata is read first (a namespace whose
     * metadata cannot be read can only be deleted), its files are moved aside for {@link ResetFrom#EMPTY}, and it
     * is opened by {@code loader}. On failure it stays damaged, with the new reason.
     */
    Namespace reset(String name, ResetFrom from, StoreKinds kinds, Loader loader) throws IOException {
        Path dir = byName.get(name).dir();
        try {
            NamespaceMetadata.read(dir, kinds);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "namespace '" + name + "' cannot be reset: its metadata cannot be read (" + e.getMessage()
                            + "); DJ.DROP " + name + " deletes it",
                    e);
        }
        if (from == ResetFrom.EMPTY) {
            Path aside = setAside(dir);
            log.warn("namespace '{}': its files were moved to {} and it starts empty", name, aside);
        }
        Namespace namespace;
        try {
            namespace = loader.load(dir);
        } catch (IOException | RuntimeException e) {
            add(name, dir, e, /* resettable= */ true); // its metadata was read above
            throw NamespaceException.damaged(byName.get(name));
        }
        byName.remove(name);
        log.warn(
                "namespace '{}' reset from {} and served again",
                name,
                from.name().toLowerCase(Locale.ROOT));
        return namespace;
    }

    /** Deletes a damaged namespace's directory, metadata first, so that a partial delete is not loaded again. */
    void delete(String name) {
        Path dir = byName.get(name).dir();
        try {
            NamespaceMetadata.delete(dir);
            Namespace.deleteTree(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "damaged namespace '" + name + "' is deleted but some of its files could not be removed", e);
        }
        byName.remove(name);
        log.info("deleted damaged namespace '{}'", name);
    }

    private static boolean metadataReadable(Path dir, StoreKinds kinds) {
        try {
            NamespaceMetadata.read(dir, kinds);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    void add(String name, Path dir, Throwable cause, boolean resettable) {
        byName.put(name, new DamagedNamespace(name, dir, String.valueOf(cause.getMessage()), resettable));
    }

    boolean contains(String name) {
        return byName.containsKey(name);
    }

    DamagedNamespace get(String name) {
        return byName.get(name);
    }

    /** The damaged namespaces, by name. */
    List<DamagedNamespace> list() {
        List<DamagedNamespace> all = new ArrayList<>(byName.values());
        all.sort(Comparator.comparing(DamagedNamespace::name));
        return all;
    }

    /** Throws the refusal every command on a damaged namespace gets, if {@code name} is one. */
    void refuseIfDamaged(String name) {
        DamagedNamespace damaged = byName.get(name);
        if (damaged != null) {
            throw NamespaceException.damaged(damaged);
        }
    }

    /**
     * Moves every file of the namespace's directory but its metadata into a new {@code set-aside-<UTC time>}
     * directory inside it, which no store reads; returns that directory.
     */
    static Path setAside(Path dir) throws IOException {
        Path aside = dir.resolve("set-aside-" + STAMP.format(ZonedDateTime.now(ZoneOffset.UTC)));
        for (int n = 2; Files.exists(aside); n++) {
            aside = dir.resolve("set-aside-" + STAMP.format(ZonedDateTime.now(ZoneOffset.UTC)) + "-" + n);
        }
        Files.createDirectory(aside);
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : entries.toList()) {
                String fileName = entry.getFileName().toString();
                if (!fileName.equals(NamespaceMetadata.FILE) && !fileName.startsWith("set-aside-")) {
                    Files.move(entry, aside.resolve(fileName));
                }
            }
        }
        return aside;
    }
}
