package dev.deja.exact;

import dev.deja.checks.Require;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDB;

/**
 * Consistent copies of an exact store (RocksDB Checkpoint) and their restore into a new data directory; see
 * {@link ExactStore#checkpoint} and {@link ExactStore#restore} for the contract.
 */
final class Checkpoints {

    private Checkpoints() {}

    /**
     * Writes a copy of the database to {@code target}, a directory that must not exist yet, under the store's
     * {@code guard}.
     */
    static void write(RocksDB db, StoreGuard guard, Path target) {
        Require.nonNull("target", target);
        if (Files.exists(target)) {
            throw new IllegalArgumentException("checkpoint target must not exist yet (got " + target + ")");
        }
        guard.writeFiles("checkpoint to " + target, () -> {
            try (Checkpoint checkpoint = Checkpoint.create(db)) {
                checkpoint.createCheckpoint(target.toString());
            }
            return null;
        });
    }

    /** Copies a checkpoint into {@code dataDir}, which must not exist yet; the checkpoint stays untouched. */
    static void restore(Path checkpoint, Path dataDir) {
        Require.nonNull("checkpoint", checkpoint);
        Require.nonNull("dataDir", dataDir);
        if (!Files.isRegularFile(checkpoint.resolve("CURRENT"))) {
            throw new IllegalArgumentException("checkpoint must be a directory written by checkpoint() (no CURRENT"
                    + " file in " + checkpoint + ")");
        }
        if (Files.exists(dataDir)) {
            throw new IllegalArgumentException("dataDir must not exist yet (got " + dataDir + ")");
        }
        try (Stream<Path> files = Files.list(checkpoint)) {
            Files.createDirectories(dataDir);
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, dataDir.resolve(f.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not restore " + checkpoint + " into " + dataDir, e);
        }
    }
}
