package dev.deja.status;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;

/**
 * The disk a data dir takes: the bytes of its files, each file once however many hard links it has (an exact
 * namespace's checkpoints link the table files of its store), and the room left on its file system.
 *
 * @param usedBytes   bytes of the files under the data dir
 * @param usableBytes bytes this process may still write on the data dir's file system
 * @param totalBytes  the size of that file system
 */
public record DiskUsage(long usedBytes, long usableBytes, long totalBytes) {

    /** Nothing measured yet. */
    static final DiskUsage UNKNOWN = new DiskUsage(-1, -1, -1);

    /**
     * Measures {@code dataDir}; files that vanish while it is walked (a journal segment rolled, a namespace deleted)
     * are skipped.
     */
    static DiskUsage of(Path dataDir) throws IOException {
        Set<Object> seen = new HashSet<>();
        long[] used = {0};
        Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                Object id = attributes.fileKey();
                if (attributes.isRegularFile() && (id == null || seen.add(id))) {
                    used[0] += attributes.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        FileStore store = Files.getFileStore(dataDir);
        return new DiskUsage(used[0], store.getUsableSpace(), store.getTotalSpace());
    }
}
