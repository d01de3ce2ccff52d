package dev.deja.exact;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One time slice of the exact store: a RocksDB column family holding the keys first recorded while it was newest.
 *
 * <p>The column family's name carries everything needed to rebuild the list on reopen: a sequence number that
 * orders generations even when two are created in the same millisecond (a size-driven rollover) and the creation
 * time, which is also the first-seen time of its oldest key and the base of its values' time field.
 *
 * <p>Background work on a generation (its seal, the loading of its filter) {@link #pin pins} it, so that a drop
 * while that work runs drops the column family and closes its handle only when the last of them lets go: no native
 * call ever sees a closed handle or a dropped column family. (A flush or compaction of a dropped column family
 * fails with a status rocksdbjni cannot map, code 14, which it reports on stderr and as an
 * IllegalArgumentException: a seal would meet it whenever a size bound dropped the generation it had just started
 * on.)
 */
final class Generation {

    private static final Logger LOG = LoggerFactory.getLogger(Generation.class);

    private static final Pattern NAME = Pattern.compile("g(\\d{12})-(\\d+)");

    final long sequence;
    final long createdMillis;
    final ColumnFamilyHandle handle;
    /** The keys it holds, asked before RocksDB. */
    final KeyFilter filter;
    /** Set once dropped; guarded by this generation's monitor, like {@link #pins} and {@link #sealing}. */
    private boolean dropped;

    private int pins;
    /** The database to drop the column family from once unpinned; set by {@link #drop}. */
    private RocksDB droppedFrom;
    /** The options of the compaction sealing it, while one runs, so that a drop can cancel it ({@link Sealer}). */
    CompactRangeOptions sealing;

    Generation(long sequence, long createdMillis, ColumnFamilyHandle handle, KeyFilter filter) {
        this.sequence = sequence;
        this.createdMillis = createdMillis;
        this.handle = handle;
        this.filter = filter;
    }

    /** Keeps the handle open until {@link #unpin()}; false (and nothing to undo) if the generation was dropped. */
    synchronized boolean pin() {
        if (dropped) {
            return false;
        }
        pins++;
        return true;
    }

    /** Lets go of the handle; the last pin of a dropped generation drops its column family. */
    synchronized void unpin() {
        if (--pins == 0 && dropped) {
            try {
                dropFamily();
            } catch (RocksDBException e) {
                // Still listed in the database: the next open finds it as the oldest generation and drops it again
                // if it is still due (its successor's age and the size bound say so).
                LOG.warn("exact store could not drop an aged-out generation; it stays on disk until the next open", e);
            }
        }
    }

    /**
     * Marks the generation dropped (the store no longer lists it) and cancels its seal; drops its column family from
     * {@code db} and closes the handle now unless pinned, else the last {@link #unpin()} does.
     */
    synchronized void drop(RocksDB db) throws RocksDBException {
        dropped = true;
        droppedFrom = db;
        if (sealing != null) {
            sealing.setCanceled(true);
        }
        if (pins == 0) {
            dropFamily();
        }
    }

    private void dropFamily() throws RocksDBException {
        try {
            droppedFrom.dropColumnFamily(handle);
        } finally {
            handle.close();
        }
    }

    synchronized boolean dropped() {
        return dropped;
    }

    /** The column family name of a generation. */
    static byte[] name(long sequence, long createdMillis) {
        return String.format("g%012d-%d", sequence, createdMillis).getBytes(StandardCharsets.US_ASCII);
    }

    /** {sequence, createdMillis} parsed from a column family name, or null if it is not a generation's. */
    static long[] parse(byte[] name) {
        Matcher m = NAME.matcher(new String(name, StandardCharsets.US_ASCII));
        return m.matches() ? new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))} : null;
    }
}
