package dev.deja.exact;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;

/**
 * The RocksDB database of an exact store as {@link StoreOpener} opened it: the database, its default column family
 * (which holds only the store's metadata, {@link StoreMetadata}) and the options it was opened with.
 *
 * @param db            the database
 * @param defaultFamily its default column family
 * @param tuning        the options it was opened with, closed after it
 */
record StoreDatabase(RocksDB db, ColumnFamilyHandle defaultFamily, Tuning tuning) {

    /** Closes the default column family, the database and its options; the generations' handles are closed first. */
    void close() {
        defaultFamily.close();
        db.close();
        tuning.close();
    }
}
