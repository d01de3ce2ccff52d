package dev.deja.namespace;

import java.io.IOException;
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

/**
 * The namespaces found in the data dir that could not be opened (a damaged snapshot no journal can make up for, an
 * unreadable file, a broken metadata file): as Redis does with a damaged file, they are not served, while the others
 * are. Each is reported with the reason its open failed, which names the file, until an operator resets it.
 */
final class DamagedNamespaces {

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final ConcurrentHashMap<String, DamagedNamespace> byName = new ConcurrentHashMap<>();

    void add(String name, Path dir, Throwable cause) {
        byName.put(name, new DamagedNamespace(name, dir, String.valueOf(cause.getMessage())));
    }

    void remove(String name) {
        byName.remove(name);
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
            throw NamespaceException.damaged(name, damaged.reason());
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
