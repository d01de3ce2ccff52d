package dev.deja.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The lock on a store's directory, held while the store is open: a second store on the same directory, in this
 * process or another, is refused rather than left to write the same journal.
 */
final class DirectoryLock implements Closeable {

    private final FileChannel lockFile;

    private DirectoryLock(FileChannel lockFile) {
        this.lockFile = lockFile;
    }

    /**
     * Takes the lock of {@code dir}, an existing directory, through its file {@code lock}.
     *
     * @throws IOException if the lock file cannot be opened, or another store holds the lock
     */
    static DirectoryLock take(Path dir) throws IOException {
        FileChannel lockFile =
                FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            FileLock held;
            try {
                held = lockFile.tryLock();
            } catch (OverlappingFileLockException e) {
                held = null;
            }
            if (held == null) {
                throw new IOException(dir + " is already open (its lock file is held)");
            }
            return new DirectoryLock(lockFile);
        } catch (IOException | RuntimeException e) {
            lockFile.close();
            throw e;
        }
    }

    /** Releases the lock. */
    @Override
    public void close() throws IOException {
        lockFile.close();
    }
}
