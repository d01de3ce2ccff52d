package dev.deja.exact;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * What an exact store fixes when it is created, kept as entries of its default column family (docs/FORMAT.md
 * section 6): the id format, the time unit, the value format and, for the key-value layout, that values are on.
 * Reopening checks them, so that a store is never read with settings that would miss every key or misread every
 * value.
 */
final class StoreMetadata {

    private static final byte[] ID_FORMAT = "id-format".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TIME_UNIT = "time-unit-ms".getBytes(StandardCharsets.US_ASCII);
    /** Present, as {@code 1}, only in a store created with values; its absence means the seen-set layout. */
    private static final byte[] VALUES = "values".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] VALUES_ON = {'1'};
    /** Absent in stores created before it existed, which keep {@link StoredValue#FORMAT_VARINT_TIME}. */
    private static final byte[] VALUE_FORMAT = "value-format".getBytes(StandardCharsets.US_ASCII);
    /** Values date keys to about 1/256 of a slice: one byte of information, precise enough to answer "when". */
    private static final int UNITS_PER_SLICE = 256;
    /** The time unit of a store without a time bound, whose generations are cut by size alone. */
    private static final long SIZE_ONLY_TIME_UNIT_MILLIS = 60_000;

    private static final long[] ROUND_UNITS_MILLIS = {
        1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000
    };

    private StoreMetadata() {}

    /**
     * Records the id format, time unit, value format and (for the key-value layout) values on creation and returns
     * the layout; refuses to reopen with another id format, which would miss every key, another value layout, which
     * would misread every value, or a value format newer than this version reads. The unit stays as created even if
     * the window changes.
     */
    static ValueLayout readOrCreate(RocksDB db, ColumnFamilyHandle defaultFamily, StoreOptions options)
            throws RocksDBException {
        byte[] storedFormat = db.get(defaultFamily, ID_FORMAT);
        if (storedFormat != null) {
            return read(db, defaultFamily, options, storedFormat);
        }
        long unit = options.window() == null
                ? SIZE_ONLY_TIME_UNIT_MILLIS
                : roundUnit(options.window().toMillis() / options.generations() / UNITS_PER_SLICE);
        db.put(defaultFamily, TIME_UNIT, Long.toString(unit).getBytes(StandardCharsets.US_ASCII));
        if (options.values()) {
            db.put(defaultFamily, VALUES, VALUES_ON);
        }
        db.put(
                defaultFamily,
                VALUE_FORMAT,
                Integer.toString(StoredValue.CURRENT_FORMAT).getBytes(StandardCharsets.US_ASCII));
        // Last: its presence marks a created store, so everything written before it is there too.
        db.put(defaultFamily, ID_FORMAT, options.idFormat().name().getBytes(StandardCharsets.US_ASCII));
        // Nothing else is written here, and an unflushed memtable would pin every WAL file forever.
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, defaultFamily);
        }
        return new ValueLayout(unit, StoredValue.CURRENT_FORMAT, options.values());
    }

    private static ValueLayout read(
            RocksDB db, ColumnFamilyHandle defaultFamily, StoreOptions options, byte[] storedFormat)
            throws RocksDBException {
        byte[] storedUnit = db.get(defaultFamily, TIME_UNIT);
        byte[] storedValueFormat = db.get(defaultFamily, VALUE_FORMAT);
        if (!Arrays.equals(storedFormat, options.idFormat().name().getBytes(StandardCharsets.US_ASCII))) {
            throw new IllegalArgumentException("idFormat must match the store's (" + options.directory() + " was"
                    + " created with " + new String(storedFormat, StandardCharsets.US_ASCII) + ", got "
                    + options.idFormat() + ")");
        }
        boolean storedValues = Arrays.equals(db.get(defaultFamily, VALUES), VALUES_ON);
        if (storedValues != options.values()) {
            throw new IllegalArgumentException("values must match the store's (" + options.directory()
                    + " was created "
                    + (storedValues ? "with values, the key-value layout" : "without values, the seen-set layout")
                    + "; open it with values(" + storedValues + "))");
        }
        long unit = Long.parseLong(new String(storedUnit, StandardCharsets.US_ASCII));
        if (storedValueFormat == null) {
            return new ValueLayout(unit, StoredValue.FORMAT_VARINT_TIME, storedValues);
        }
        String text = new String(storedValueFormat, StandardCharsets.US_ASCII);
        if (!text.matches("[1-9][0-9]{0,8}") || Integer.parseInt(text) > StoredValue.CURRENT_FORMAT) {
            throw new IllegalArgumentException(options.directory() + " holds exact-store values in format \"" + text
                    + "\"; this version of deja reads formats 1 to " + StoredValue.CURRENT_FORMAT
                    + " (docs/FORMAT.md section 6)");
        }
        return new ValueLayout(unit, Integer.parseInt(text), storedValues);
    }

    /** The first round duration at least this long, so that first-seen times read as whole minutes etc. */
    private static long roundUnit(long millis) {
        for (long unit : ROUND_UNITS_MILLIS) {
            if (unit >= millis) {
                return unit;
            }
        }
        long hour = ROUND_UNITS_MILLIS[ROUND_UNITS_MILLIS.length - 1];
        return (millis + hour - 1) / hour * hour;
    }
}
