package dev.deja.journal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;

/**
 * Writes a stream to a file channel from its current position, leaving a hole wherever a whole file-system block
 * of zeros would go. A snapshot of a store that is mostly empty (a 1 GiB bloom filter holding a few keys) then
 * takes a few blocks of disk instead of its full size, and writing and fsyncing it costs as little; reading the
 * file gives the zeros back, so the format and its checksum do not change.
 *
 * <p>Bytes are staged until the blocks they fall in are complete, whatever the sizes of the writes, so that each
 * block is judged whole; consecutive data blocks go out in one write. {@link #flush()} writes what is staged,
 * leaves the channel's position at the end of the stream and the file at least that long (a trailing hole is closed
 * with one zero byte), so the caller can read the length from the position.
 */
final class SparseFileOutput extends OutputStream {

    /** The unit of a hole: a common file-system block size. */
    static final int BLOCK = 4096;

    private static final int STAGE = 16 * BLOCK;
    private static final byte[] ZEROS = new byte[BLOCK];

    private final FileChannel channel;
    private final byte[] stage = new byte[STAGE];
    /** File offset of {@code stage[0]}. */
    private long stageAt;

    private int staged;

    SparseFileOutput(FileChannel channel) throws IOException {
        this.channel = channel;
        this.stageAt = channel.position();
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            // the stage ends on a block boundary, so only the stream's first block can start unaligned
            int room = STAGE - Math.floorMod(stageAt, BLOCK) - staged;
            int n = Math.min(room, len);
            System.arraycopy(b, off, stage, staged, n);
            staged += n;
            off += n;
            len -= n;
            if (n == room) {
                writeStage();
            }
        }
    }

    /** Writes the staged bytes: runs of data blocks in one write each, whole zero blocks not at all. */
    private void writeStage() throws IOException {
        int runStart = 0;
        int i = 0;
        while (i < staged) {
            int n = Math.min(BLOCK - Math.floorMod(stageAt + i, BLOCK), staged - i);
            if (n == BLOCK && Arrays.mismatch(stage, i, i + n, ZEROS, 0, n) == -1) {
                writeAt(runStart, i - runStart);
                runStart = i + n;
            }
            i += n;
        }
        writeAt(runStart, staged - runStart);
        stageAt += staged;
        staged = 0;
    }

    private void writeAt(int from, int length) throws IOException {
        ByteBuffer data = ByteBuffer.wrap(stage, from, length);
        long at = stageAt + from;
        while (data.hasRemaining()) {
            at += channel.write(data, at);
        }
    }

    @Override
    public void flush() throws IOException {
        writeStage();
        if (channel.size() < stageAt) {
            channel.write(ByteBuffer.wrap(new byte[1]), stageAt - 1);
        }
        channel.position(stageAt);
    }
}
