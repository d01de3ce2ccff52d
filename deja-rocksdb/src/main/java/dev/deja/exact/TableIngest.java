package dev.deja.exact;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileWriter;

/**
 * Writes keys into a generation as one table file that RocksDB takes in whole (ingestion), instead of inserting each
 * into a memtable: the keys are sorted once and written out in order, where a memtable insert of a random key walks
 * a skiplist with a cache miss per level and a flush writes the same file later. The file is written with the
 * column families' own options (table format, filters, compression), next to the database, and moved into it.
 */
final class TableIngest implements AutoCloseable {

    /** The file being written; a crash may leave it, and the next ingestion overwrites it. */
    static final String FILE_NAME = "ingest.sst.tmp";

    private final RocksDB db;
    private final Path file;
    private final Options options;
    private final EnvOptions envOptions = new EnvOptions();
    private final KeyOrder keyOrder = new KeyOrder();
    /** The direct buffers a key and its value are passed in; each replaced by a larger one when it does not fit. */
    private ByteBuffer keyBuffer = ByteBuffer.allocateDirect(64);

    private ByteBuffer valueBuffer = ByteBuffer.allocateDirect(64);

    TableIngest(RocksDB db, Tuning tuning) {
        this.db = db;
        this.file = Path.of(db.getName()).resolve(FILE_NAME);
        this.options = new Options(tuning.dbOptions, tuning.cfOptions);
    }

    /**
     * Writes {@code values[i]} for {@code keys[i]} into generation {@code g}, as one table file. A key given more
     * than once is written once, with its last value. Durable when it returns: the file and RocksDB's record of it
     * are synced.
     */
    void ingest(Generation g, byte[][] keys, byte[][] values) throws RocksDBException {
        int[] order = keyOrder.of(keys);
        try {
            try (SstFileWriter writer = new SstFileWriter(envOptions, options)) {
                writer.open(file.toString());
                for (int i = 0; i < order.length; i++) {
                    byte[] key = keys[order[i]];
                    // of equal keys the last one given comes last (KeyOrder keeps their order): write that one
                    if (i + 1 < order.length && Arrays.equals(key, keys[order[i + 1]])) {
                        continue;
                    }
                    keyBuffer = holding(keyBuffer, key);
                    valueBuffer = holding(valueBuffer, values[order[i]]);
                    writer.put(keyBuffer, valueBuffer);
                }
                writer.finish();
            }
            try (IngestExternalFileOptions ingest = new IngestExternalFileOptions().setMoveFiles(true)) {
                db.ingestExternalFile(g.handle, List.of(file.toString()), ingest);
            }
        } finally {
            deleteFile();
        }
    }

    /**
     * {@code buffer}, or a larger direct buffer if it is too small, holding {@code bytes}: RocksDB reads a direct
     * buffer in place, where a byte array passed through JNI is copied in and released for every key.
     */
    private static ByteBuffer holding(ByteBuffer buffer, byte[] bytes) {
        ByteBuffer b = buffer.capacity() >= bytes.length
                ? buffer
                : ByteBuffer.allocateDirect(Integer.highestOneBit(bytes.length) << 1);
        return b.clear().put(bytes).flip();
    }

    /** Deletes the file if RocksDB did not take it; one left behind is overwritten by the next ingestion. */
    private void deleteFile() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // left for the next ingestion to overwrite; the ingestion's own outcome stands
        }
    }

    @Override
    public void close() {
        envOptions.close();
        options.close();
    }
}
