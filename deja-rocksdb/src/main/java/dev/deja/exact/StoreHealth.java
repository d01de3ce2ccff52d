package dev.deja.exact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an exact store can write and read, and the errors its callers get when it cannot: a write failure
 * is logged when writes start failing and when they work again, not for each failure; a read failure is logged
 * once; a store opened read-only (its disk refused the writes of a writable open) refuses every write.
 */
final class StoreHealth {

    /** Logged under the public store's name, {@code ExactStore}, which is what the log shows operators. */
    private static final Logger LOG = LoggerFactory.getLogger("dev.deja.exact.ExactStore");

    private final Path directory;
    private final Clock clock;
    /** Why the store was opened read-only, or null. */
    private final String readOnlyBecause;

    private final Object lock = new Object();
    /** Set by the first failed write or sync, cleared by the next that succeeds. */
    private volatile WriteFailure writeFailure;

    private final AtomicBoolean readFailureLogged = new AtomicBoolean();

    private record WriteFailure(String message, long sinceMillis) {}

    StoreHealth(Path directory, Clock clock, String readOnlyBecause) {
        this.directory = directory;
        this.clock = clock;
        this.readOnlyBecause = readOnlyBecause;
        if (readOnlyBecause != null) {
            writeFailure = new WriteFailure(readOnlyBecause, clock.millis());
            LOG.error(
                    "{}; opened read-only (store in {}): reads are answered, writes fail until it is opened again"
                            + " once the disk takes writes",
                    readOnlyBecause,
                    directory);
        }
    }

    /** Whether the store was opened read-only: it then never writes, not even at close. */
    boolean readOnly() {
        return readOnlyBecause != null;
    }

    /** Refuses a write to a store opened read-only. */
    void refuseIfReadOnly() {
        if (readOnlyBecause != null) {
            throw new UncheckedIOException(
                    "exact store could not write: it is open read-only, since the disk refused"
                            + " writes when it was opened (" + readOnlyBecause
                            + "); writes fail until the disk takes them",
                    new IOException(readOnlyBecause));
        }
    }

    /** See {@link ExactStore#writesFailing()}. */
    boolean writesFailing() {
        return writeFailure != null;
    }

    /** A failed write or sync: logged when writes start failing, not for each failure after it. */
    UncheckedIOException writeFailed(String what, RocksDBException e) {
        UncheckedIOException failure = failure(what, e);
        if (writeFailure == null) {
            synchronized (lock) {
                if (writeFailure == null) {
                    writeFailure = new WriteFailure(failure.getMessage(), clock.millis());
                    LOG.error(
                            "{} (store in {}); writes fail until it can write again (logged again then, not for"
                                    + " each failure)",
                            failure.getMessage(),
                            directory);
                }
            }
        }
        return failure;
    }

    /** A write or sync succeeded: if writes were failing, says since when and what the failure was. */
    void wrote() {
        if (writeFailure != null) {
            synchronized (lock) {
                WriteFailure f = writeFailure;
                if (f != null) {
                    writeFailure = null;
                    LOG.info(
                            "exact store in {}: writing again after {} s of failures ({})",
                            directory,
                            Math.max(0, clock.millis() - f.sinceMillis()) / 1000,
                            f.message());
                }
            }
        }
    }

    /** A failed read: never an absent key. Logged once per store, with what to do about a damaged file. */
    StoreReadException readFailed(RocksDBException e) {
        boolean corrupt = e.getStatus() != null && e.getStatus().getCode() == Status.Code.Corruption;
        String what = corrupt
                ? "read (corruption: a table file in " + directory + " is damaged)"
                : "read (in " + directory + ")";
        if (readFailureLogged.compareAndSet(false, true)) {
            LOG.error(
                    "exact store in {} could not read a key{}: {}; commands reaching the damaged data fail until"
                            + " the store is restored from a copy made before the damage on another disk"
                            + " (its checkpoints hard-link the same table files); further read errors are not logged",
                    directory,
                    corrupt ? " (corruption)" : "",
                    e.getMessage());
        }
        return new StoreReadException("exact store could not " + what + ": " + e.getMessage(), new IOException(e));
    }

    /** The error a caller gets for a RocksDB call that failed. */
    static UncheckedIOException failure(String what, RocksDBException e) {
        // RocksDB's message alone may not say it is a corruption ("checksum mismatch" for a damaged log record)
        Status status = e.getStatus();
        String detail = status != null
                        && status.getCode() == Status.Code.Corruption
                        && !String.valueOf(e.getMessage())
                                .toLowerCase(Locale.ROOT)
                                .contains("corrupt")
                ? "corruption: " + e.getMessage()
                : e.getMessage();
        return new UncheckedIOException("exact store could not " + what + ": " + detail, new IOException(e));
    }
}
