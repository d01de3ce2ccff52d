package dev.deja.exact;

import dev.deja.journal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The settings an {@link ExactStoreBuilder} validated, as one value for the classes that open and run the store.
 *
 * @param directory          where the store lives
 * @param window             how long keys are held at least, or null for a store bounded by size alone
 * @param maxBytes           the size bound on table files plus memtables, 0 for none
 * @param generations        how many time slices the window is cut into
 * @param minWindow          the effective window below which the store warns, or null for none
 * @param idFormat           how textual ids become stored bytes
 * @param refreshOnDuplicate whether a key seen again is kept for a new full window
 * @param countDuplicates    whether each key counts its duplicates
 * @param fsync              when the write-ahead log is synced
 * @param writeAheadLog      whether writes go through RocksDB's write-ahead log
 * @param values             whether keys carry a value and an expiry (the key-value layout)
 * @param maxValueBytes      the largest value accepted
 * @param blockCacheBytes    the RocksDB block cache all generations share
 * @param blockBytes         the data bytes per block of a table file
 * @param memtableBytes      one memtable's size
 * @param clock              the clock that dates keys and drives rollover and age-out
 */
record StoreOptions(
        Path directory,
        Duration window,
        long maxBytes,
        int generations,
        Duration minWindow,
        IdFormat idFormat,
        boolean refreshOnDuplicate,
        boolean countDuplicates,
        FsyncPolicy fsync,
        boolean writeAheadLog,
        boolean values,
        int maxValueBytes,
        long blockCacheBytes,
        int blockBytes,
        long memtableBytes,
        Clock clock) {

    /** The window in milliseconds, 0 for a store bounded by size alone. */
    long windowMillis() {
        return window == null ? 0 : window.toMillis();
    }

    /** The minimum window in milliseconds, 0 for none. */
    long minWindowMillis() {
        return minWindow == null ? 0 : minWindow.toMillis();
    }
}
