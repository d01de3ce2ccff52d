package dev.deja.exact;

import dev.deja.bloom.BloomFilter;
import dev.deja.files.Directories;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key filters of a cleanly closed exact store, kept in files so that the next open need not read every key
 * back ({@link FilterLoader}: a scan of every table file, during which lookups ask RocksDB and run slower).
 *
 * <p>Written only when the store closes ({@link StoreEngine#close()}), after the last write, one file per generation
 * whose filter is complete (docs/FORMAT.md section 6.1). Read and then deleted by the next open, before the store takes
 * a write: a file can therefore only describe the state of a clean close, never a generation that has received keys
 * since. A crash leaves no files behind, and the next open reads the keys back as before. A file that is missing,
 * corrupt or of another generation is ignored (that generation's keys are read back instead), so a damaged file costs
 * time, never a wrong answer. While the store runs the directory is empty: the files hold the filters' bits, which only
 * a stopped store keeps on disk.
 */
final class KeyFilterFiles {

    /** The subdirectory of the store's directory that holds the files. */
    static final String DIRECTORY = "key-filters";

    static final String SUFFIX = ".filter";

    private static final Logger LOG = LoggerFactory.getLogger(KeyFilterFiles.class);
    private static final int MAGIC = 0x464B4A44; // "DJKF" read as a little-endian int
    private static final int VERSION = 1;
    /** Magic, version, name length, keys, parts; then the name, then the CRC32C of all that. */
    private static final int FIXED_HEADER_BYTES = 4 + 1 + 2 + 8 + 4;

    private static final int MAX_PARTS = 64;

    private final Path dir;

    KeyFilterFiles(Path storeDirectory) {
        this.dir = storeDirectory.resolve(DIRECTORY);
    }

    /**
     * Reads every valid file, keyed by generation name, then deletes all the files (and the directory's record of
     * them) so that none outlives this open.
     *
     * @throws IOException if the files cannot be deleted: a store that went on with a file it cannot remove could
     *                     read it back after a crash, when its generation holds keys the file lacks
     */
    Map<String, KeyFilter> takeAll() throws IOException {
        Map<String, KeyFilter> filters = readAll();
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path file : files) {
                    Files.delete(file);
                }
            }
            forceDirectory();
        }
        return filters;
    }

    /** The filters the files hold, leaving the files in place: for a store opened read-only, which changes nothing. */
    Map<String, KeyFilter> readAll() throws IOException {
        Map<String, KeyFilter> filters = new HashMap<>();
        if (!Files.isDirectory(dir)) {
            return filters;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(SUFFIX)) {
                    String generation = name.substring(0, name.length() - SUFFIX.length());
                    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
                        filters.put(generation, read(in, generation));
                    } catch (IOException | RuntimeException e) {
                        LOG.warn(
                                "exact store ignores key filter file {} and reads that generation's keys back: {}",
                                file,
                                e.getMessage());
                    }
                }
            }
        }
        return filters;
    }

    /**
     * Writes the complete filters of the generations, each to a temporary file that is synced and renamed into
     * place; a failure is logged and leaves that generation to be read back at the next open.
     */
    void writeAll(Iterable<Generation> generations) {
        try {
            Files.createDirectories(dir);
            for (Generation g : generations) {
                if (g.filter.complete()) {
                    write(g);
                }
            }
            forceDirectory();
        } catch (IOException e) {
            LOG.warn("exact store could not keep its key filters at close; the next open reads its keys back", e);
        }
    }

    private void write(Generation g) throws IOException {
        String name = new String(Generation.name(g.sequence, g.createdMillis), StandardCharsets.US_ASCII);
        Path target = dir.resolve(name + SUFFIX);
        Path temp = dir.resolve(name + SUFFIX + ".tmp");
        try (FileChannel ch = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
            write(out, name, g.filter);
            out.flush();
            ch.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The file format: a checksummed header naming the generation, then each part as a deja bloom stream. */
    static void write(OutputStream out, String generation, KeyFilter filter) throws IOException {
        byte[] name = generation.getBytes(StandardCharsets.US_ASCII);
        BloomFilter[] parts = filter.partsSnapshot();
        ByteBuffer header =
                ByteBuffer.allocate(FIXED_HEADER_BYTES + name.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(MAGIC)
                .put((byte) VERSION)
                .putShort((short) name.length)
                .putLong(filter.keys())
                .putInt(parts.length)
                .put(name);
        header.putInt(crc(header.array(), header.position()));
        out.write(header.array());
        for (BloomFilter part : parts) {
            part.writeTo(out);
        }
    }

    /**
     * Reads a filter written by {@link #write(OutputStream, String, KeyFilter)} for the named generation.
     *
     * @throws IOException if the stream is not such a file, is of another generation, corrupt or truncated
     */
    static KeyFilter read(InputStream in, String generation) throws IOException {
        byte[] fixed = in.readNBytes(FIXED_HEADER_BYTES);
        if (fixed.length < FIXED_HEADER_BYTES) {
            throw new IOException("truncated key filter header");
        }
        ByteBuffer b = ByteBuffer.wrap(fixed).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt() != MAGIC) {
            throw new IOException("not a key filter file (bad magic)");
        }
        int version = b.get();
        if (version != VERSION) {
            throw new IOException("unknown key filter version " + version + " (this reader knows " + VERSION + ")");
        }
        int nameLength = Short.toUnsignedInt(b.getShort());
        long keys = b.getLong();
        int parts = b.getInt();
        byte[] rest = in.readNBytes(nameLength + 4);
        if (rest.length < nameLength + 4) {
            throw new IOException("truncated key filter header");
        }
        byte[] header = new byte[FIXED_HEADER_BYTES + nameLength];
        System.arraycopy(fixed, 0, header, 0, FIXED_HEADER_BYTES);
        System.arraycopy(rest, 0, header, FIXED_HEADER_BYTES, nameLength);
        int stored = ByteBuffer.wrap(rest, nameLength, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt();
        if (stored != crc(header, header.length)) {
            throw new IOException("corrupt key filter header: checksum mismatch");
        }
        String name = new String(header, FIXED_HEADER_BYTES, nameLength, StandardCharsets.US_ASCII);
        if (!name.equals(generation)) {
            throw new IOException("key filter of generation " + name + ", not " + generation);
        }
        if (parts < 1 || parts > MAX_PARTS || keys < 0) {
            throw new IOException("key filter header holds impossible values: " + parts + " parts, " + keys + " keys");
        }
        BloomFilter[] filters = new BloomFilter[parts];
        for (int i = 0; i < parts; i++) {
            filters[i] = BloomFilter.readFrom(in);
        }
        if (in.read() != -1) {
            throw new IOException("key filter file continues after its last part");
        }
        return KeyFilter.restored(filters, keys);
    }

    private void forceDirectory() throws IOException {
        try {
            Directories.force(dir);
        } catch (NoSuchFileException e) {
            // nothing was ever written
        }
    }

    private static int crc(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }
}
