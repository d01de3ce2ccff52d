package dev.deja.namespace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules a change that removes a namespace's files must pass before it begins: a delete, a clear, a dump loaded
 * over its content.
 *
 * <p>Such a change closes the namespace's store before it removes the files, so a refusal found halfway would leave
 * the namespace half changed: deleted from the server yet back after a restart, or closed and refusing every write.
 * Hence the checks come first. Removing a file needs its directory writable, and removing the namespace's directory
 * (a delete) the data dir too; none of it needs free space. The {@code default} namespace is never deleted:
 * requests that name no namespace use it, and with auto-create off nothing would bring it back until a restart.
 */
final class NamespaceRemoval {

    private static final Logger log = LoggerFactory.getLogger(NamespaceRemoval.class);

    private final Path dataDir;

    /** The rules for the namespaces kept in {@code dataDir}. */
    NamespaceRemoval(Path dataDir) {
        this.dataDir = dataDir;
    }

    /**
     * Refuses deleting the namespace when it is the {@code default} one or its files cannot all be removed.
     *
     * @throws IllegalArgumentException for {@code default}, naming the clear that empties it instead
     * @throws UncheckedIOException     naming the directory that is not writable, or why the files cannot be listed
     */
    void checkDelete(String name) {
        if (name.equals(Namespace.DEFAULT)) {
            throw new IllegalArgumentException("namespace 'default' cannot be deleted: it always exists (requests"
                    + " naming no namespace use it); clear it instead (POST /namespaces/default/clear,"
                    + " DJ.CLEAR default)");
        }
        List<Path> directories = new ArrayList<>();
        directories.add(dataDir);
        directories.addAll(directoriesOf(name, "delete"));
        checkWritable(name, "delete", directories);
    }

    /**
     * Refuses replacing the namespace's content ({@code action}: {@code "clear"}, {@code "load a dump into"}) when
     * its files cannot all be removed.
     *
     * @throws UncheckedIOException naming the directory that is not writable, or why the files cannot be listed
     */
    void checkReplace(String name, String action) {
        checkWritable(name, action, directoriesOf(name, action));
    }

    private static void checkWritable(String name, String action, List<Path> directories) {
        for (Path directory : directories) {
            // one gone since the walk (a checkpoint pruned or renamed into place) needs no removing
            if (!Files.isWritable(directory) && Files.exists(directory)) {
                String refusal = "cannot " + action + " namespace '" + name + "': " + directory
                        + " is not writable, so its files cannot be removed; nothing was changed";
                throw new UncheckedIOException(refusal, new IOException(refusal));
            }
        }
    }

    /**
     * The namespace's directory and every directory below it. A file that goes away while the tree is walked is
     * passed over: the namespace's snapshot thread renames and prunes files at any time.
     */
    private List<Path> directoriesOf(String name, String action) {
        Path root = dataDir.resolve(name);
        List<Path> directories = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    directories.add(dir);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException && !file.equals(root)) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot " + action + " namespace '" + name + "': its files cannot be listed: " + e, e);
        }
        return directories;
    }

    /**
     * Undoes a create that failed once it had written to {@code dir}: a metadata file left behind would make the
     * next start load the namespace again and fail the same way. The caller has released its memory. Returns what to
     * throw: a store's own exception as it is (its type says how front ends answer), an I/O error wrapped, its reason
     * kept.
     */
    RuntimeException undoCreate(String name, Path dir, boolean existed, Exception e) {
        try {
            if (existed) { // not ours to remove, only what we wrote in it
                NamespaceMetadata.delete(dir);
            } else {
                Namespace.deleteTree(dir);
            }
        } catch (IOException | UncheckedIOException removal) {
            e.addSuppressed(removal);
        }
        log.warn("could not create namespace '{}' in {}; removed what it had written", name, dir, e);
        return e instanceof IOException io
                ? new UncheckedIOException(
                        "cannot create namespace '" + name + "' in " + dataDir + ": " + io.getMessage(), io)
                : (RuntimeException) e;
    }
}
