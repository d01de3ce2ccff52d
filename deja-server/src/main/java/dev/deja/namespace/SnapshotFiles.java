package dev.deja.namespace;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * A namespace's snapshot files: the current one and the one before it, each framed so a damaged file is detected.
 *
 * <p>Layout of a snapshot file: the 8 ASCII bytes {@code DEJASNP1}, the kind's payload, then the payload length
 * (8 bytes) and the CRC32C of everything before it (4 bytes), both little-endian. A snapshot is written to a
 * temporary file, forced to disk, and only then renamed into place (seed 001), after the previous snapshot has
 * been renamed to {@code snapshot.prev}; so at every instant at least one complete snapshot exists, and a
 * current snapshot that fails its check is replaced by the previous one at load.
 */
final class SnapshotFiles {

    static final String CURRENT = "snapshot.bin";
    static final String PREVIOUS = "snapshot.prev";
    private static final String TEMPORARY = "snapshot.tmp";
    private static final byte[] MAGIC = "DEJASNP1".getBytes(StandardCharsets.US_ASCII);
    private static final int TRAILER = Long.BYTES + Integer.BYTES;

    /** Writes a payload. */
    interface Writer {
        void write(OutputStream out) throws IOException;
    }

    /** Reads a payload. */
    interface Reader<T> {
        T read(InputStream in) throws IOException;
    }

    private SnapshotFiles() {
    }

    /** Writes a new current snapshot in {@code dir}, keeping the former one as the previous. */
    static void write(Path dir, Writer payload) throws IOException {
        Path tmp = dir.resolve(TEMPORARY);
        CRC32C crc = new CRC32C();
        long[] length = {0};
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream file = new BufferedOutputStream(java.nio.channels.Channels.newOutputStream(channel), 1 << 16);
            CheckedOutputStream checked = new CheckedOutputStream(file, crc);
            checked.write(MAGIC);
            payload.write(new FilterOutputStream(checked) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    length[0] += len;
                }

                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                    length[0]++;
                }

                @Override
                public void close() {
                    // the payload writer does not own the file
                }
            });
            ByteBuffer trailer = ByteBuffer.allocate(TRAILER).order(ByteOrder.LITTLE_ENDIAN);
            trailer.putLong(length[0]).putInt((int) crc.getValue());
            file.write(trailer.array());
            file.flush();
            channel.force(true);
        }
        Path current = dir.resolve(CURRENT);
        if (Files.exists(current)) {
            Files.move(current, dir.resolve(PREVIOUS), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        }
        Files.move(tmp, current, StandardCopyOption.ATOMIC_MOVE);
        forceDirectory(dir);
    }

    /**
     * Reads the snapshot file after checking its frame and checksum.
     *
     * @throws IOException when the file is damaged or the payload cannot be read
     */
    static <T> T read(Path file, Reader<T> payload) throws IOException {
        long size = Files.size(file);
        if (size < MAGIC.length + TRAILER) {
            throw new IOException(file + " is too short to be a snapshot (" + size + " bytes)");
        }
        long payloadLength = size - MAGIC.length - TRAILER;
        CRC32C crc = new CRC32C();
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        try (InputStream in = new CheckedInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16), crc)) {
            byte[] magic = in.readNBytes(MAGIC.length);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IOException(file + " does not start with the snapshot magic " + new String(MAGIC,
                        StandardCharsets.US_ASCII));
            }
            if (in.skip(payloadLength) != payloadLength) {
                throw new EOFException(file + " ended early");
            }
        }
        try (FileChannel channel = FileChannel.open(file)) {
            channel.read(trailer, size - TRAILER);
        }
        trailer.flip();
        long recordedLength = trailer.getLong();
        int recordedCrc = trailer.getInt();
        if (recordedLength != payloadLength || recordedCrc != (int) crc.getValue()) {
            throw new IOException(file + " is damaged (length or CRC32C does not match)");
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            in.skipNBytes(MAGIC.length);
            return payload.read(new BoundedInputStream(in, payloadLength));
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // some file systems cannot open a directory for syncing; the rename itself is still atomic
        }
    }

    /** The payload part of a snapshot file, so a kind's reader cannot run into the trailer. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long remaining;

        BoundedInputStream(InputStream in, long length) {
            this.in = in;
            this.remaining = length;
        }

        @Override
        public int read() throws IOException {
            if (remaining == 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining == 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }
    }
}
