package dev.deja.journal;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.zip.Checksum;

/**
 * Reads a file from an offset to its end, the counterpart of {@link SparseFileOutput}: stretches that are mostly
 * zeros, such as the holes of a snapshot of a nearly empty store, are read with direct I/O, around the page cache.
 *
 * <p>Why. The file system gives a hole back as zeros, but a read through the page cache first fills a page of zeros for
 * every 4 KiB of it: reading the 1 GiB snapshot of a bloom filter holding a few keys would fill 1 GiB of cache with
 * zeros, costing the time to zero them and pushing useful pages out of the cache. A direct read of a hole costs no page
 * and no copy by the kernel. A direct read of data goes to the disk even when the page cache holds it, so it is kept
 * for where the file is sparse: the file is read in {@value #WINDOW}-byte windows, and a window is read directly when
 * at most an eighth of the 4 KiB pages of the window before held data (the first window is read directly too), through
 * the page cache otherwise. A full snapshot, just written and still cached, costs one direct window more than a plain
 * read. Java 21 has no way to ask where the holes are (no {@code SEEK_DATA}), and the snapshot format keeps no map of
 * them, so the bytes themselves are the guide.
 *
 * <p>Direct I/O needs reads aligned to the file system's block size and is not offered everywhere (a runtime
 * without the {@code jdk.unsupported} module, some file systems); wherever it is refused or a direct read fails, the
 * rest of the file is read through the page cache, so the bytes read never depend on it.
 */
final class SparseFileInput extends InputStream {

    /** Bytes read at a time; file offsets of windows are multiples of it, so that direct reads stay aligned. */
    static final int WINDOW = 1 << 20;

    private static final int PAGE = SparseFileOutput.BLOCK;
    /** Bytes compared with zeros at a time; a multiple of {@link #PAGE}. */
    private static final int ZERO_RUN = 16 * PAGE;

    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(ZERO_RUN).asReadOnlyBuffer();
    /** {@code ExtendedOpenOption.DIRECT}, or null where the runtime lacks it. */
    private static final OpenOption DIRECT = directOption();

    private final Path file;
    private final FileChannel channel;
    /** The file's size when opened, or where it was found to end if it shrank since. */
    private long size;
    /** Block size that direct reads must be aligned to, or 0 when direct reads are not tried. */
    private final int alignment;
    /** The current window's bytes, positioned at the next byte to return; aligned for direct reads. */
    private final ByteBuffer window;
    /** Views of the window and of {@link #ZEROS} for comparing them, with positions of their own. */
    private final ByteBuffer probe;

    private final ByteBuffer zeros = ZEROS.duplicate();
    private FileChannel directChannel;
    /** File offset of the next window. */
    private long next;

    private boolean readNextDirectly;
    private long directBytes;
    private long cachedBytes;

    /** Opens the file to read it from {@code from} on. */
    SparseFileInput(Path file, long from) throws IOException {
        this(file, from, true);
    }

    /** As above; {@code tryDirect = false} reads every window through the page cache. */
    SparseFileInput(Path file, long from, boolean tryDirect) throws IOException {
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.READ);
        try {
            this.size = channel.size();
            this.alignment = tryDirect ? alignment(file) : 0;
            ByteBuffer buffer = ByteBuffer.allocateDirect(WINDOW + Math.max(alignment, 1));
            this.window = alignment > 0
                    ? buffer.alignedSlice(alignment)
                    : buffer.limit(WINDOW).slice();
            this.probe = window.duplicate();
            this.readNextDirectly = alignment > 0;
            window.limit(0);
            if (from >= size) {
                this.next = size;
            } else {
                // windows start at multiples of WINDOW, so the one holding the first byte is read whole
                long start = from / WINDOW * WINDOW;
                this.next = start;
                if (start < from) {
                    fill();
                    window.position((int) Math.min(from - start, window.limit()));
                }
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public int read() throws IOException {
        if (!window.hasRemaining() && !fill()) {
            return -1;
        }
        return window.get() & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        int n = 0;
        while (n < len && (window.hasRemaining() || fill())) {
            int take = Math.min(len - n, window.remaining());
            window.get(b, off + n, take);
            n += take;
        }
        return n == 0 ? -1 : n;
    }

    /** Feeds every byte left to the checksum straight from the windows, without copying them; returns how many. */
    long checksumRest(Checksum checksum) throws IOException {
        long n = 0;
        while (window.hasRemaining() || fill()) {
            n += window.remaining();
            checksum.update(window);
        }
        return n;
    }

    /** The bytes left in the current window: known without asking the file system. */
    @Override
    public int available() {
        return window.remaining();
    }

    /** Bytes read so far with direct I/O, around the page cache. */
    long directBytes() {
        return directBytes;
    }

    /** Bytes read so far through the page cache. */
    long cachedBytes() {
        return cachedBytes;
    }

    @Override
    public void close() throws IOException {
        closeDirect();
        channel.close();
    }

    /** Reads the next window; false at the end of the file. */
    private boolean fill() throws IOException {
        if (next >= size) {
            return false;
        }
        int length = (int) Math.min(WINDOW, size - next);
        window.clear();
        if (readNextDirectly && readDirectly(length)) {
            directBytes += length;
        } else {
            int got = readCached(length);
            cachedBytes += got;
            if (got < length) {
                size = next + got; // the file shrank since it was opened: it ends here, as it would for a plain read
            }
        }
        window.flip();
        next += window.limit();
        readNextDirectly = directChannel != null && mostlyZero();
        return window.hasRemaining();
    }

    /** Reads the window with direct I/O; false, and direct reads given up, when it cannot. */
    private boolean readDirectly(int length) {
        try {
            if (directChannel == null) {
                directChannel = FileChannel.open(file, StandardOpenOption.READ, DIRECT);
            }
            // a direct read must cover whole blocks: the last window asks past the end and gets what there is
            window.limit((length + alignment - 1) / alignment * alignment);
            long at = next;
            while (at < next + length) {
                int n = directChannel.read(window, at);
                if (n <= 0) {
                    throw new EOFException("file ended early");
                }
                at += n;
            }
            window.limit(length).position(length);
            return true;
        } catch (IOException | RuntimeException refused) {
            // not offered here (or misaligned, or the file changed under us): the page cache serves the rest, and
            // a real read error shows again there
            closeDirect();
            return false;
        }
    }

    private void closeDirect() {
        FileChannel d = directChannel;
        directChannel = null;
        if (d == null) {
            return;
        }
        try {
            d.close();
        } catch (IOException ignored) {
            // a channel opened only for reading has nothing to lose on close
        }
    }

    /** Reads the window through the page cache; returns the bytes read, fewer than asked only at the file's end. */
    private int readCached(int length) throws IOException {
        window.clear().limit(length);
        while (window.hasRemaining() && channel.read(window, next + window.position()) >= 0) {
            // until the window is full or the file ends
        }
        return window.position();
    }

    /**
     * Whether at most an eighth of the window's whole 4 KiB pages hold a non-zero byte. A direct read costs a disk
     * read per run of data pages, and a read through the cache costs a page of zeros per hole, so which is cheaper
     * depends on the share of data pages and on whether the cache holds them: a direct read wins by far on a sparse
     * file, and loses to a cached plain read as the share of data pages grows. An eighth keeps direct reads where they
     * win, or lose little (docs/BENCHMARKS.md, section "snapshot loading", times a restart from a sparse snapshot).
     */
    private boolean mostlyZero() {
        int end = window.limit() / PAGE * PAGE; // whole pages only
        int allowed = end / PAGE / 8;
        int data = 0;
        // Compared a run of pages at a time, so that a window of zeros costs a few calls and a window of data stops
        // at its allowed share of pages; from a mismatch, the search goes on at the next page.
        for (int at = 0; at < end; ) {
            int length = Math.min(ZERO_RUN, end - at);
            probe.limit(at + length).position(at);
            int mismatch = probe.mismatch(zeros.limit(length).position(0));
            if (mismatch < 0) {
                at += length;
            } else if (++data > allowed) {
                return false;
            } else {
                at = (at + mismatch) / PAGE * PAGE + PAGE;
            }
        }
        return end > 0;
    }

    /** The block size of the file's store when direct reads can be tried with windows of {@link #WINDOW}, else 0. */
    private static int alignment(Path file) {
        if (DIRECT == null) {
            return 0;
        }
        try {
            long block = Files.getFileStore(file).getBlockSize();
            return block > 0 && block <= WINDOW && WINDOW % block == 0 ? (int) block : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, looked up by name: it lives in the {@code jdk.unsupported}
     * module, which a runtime may lack, and naming it in the source would draw a warning on every build.
     */
    private static OpenOption directOption() {
        try {
            for (Object option :
                    Class.forName("com.sun.nio.file.ExtendedOpenOption").getEnumConstants()) {
                if (((Enum<?>) option).name().equals("DIRECT")) {
                    return (OpenOption) option;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // no such option here: every read goes through the page cache
        }
        return null;
    }
}
