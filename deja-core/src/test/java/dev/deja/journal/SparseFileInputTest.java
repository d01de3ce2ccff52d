package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SparseFileInputTest {

    private static final int WINDOW = SparseFileInput.WINDOW;
    private static final int PAGE = SparseFileOutput.BLOCK;

    @TempDir
    Path tmp;

    /** Writes the bytes as the snapshot writer does: every whole zero block left as a hole. */
    private Path sparseFile(String name, byte[] content) throws IOException {
        Path file = tmp.resolve(name);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            OutputStream out = new SparseFileOutput(ch);
            out.write(content);
            out.flush();
        }
        return file;
    }

    /**
     * Five windows and a short tail: sparse, dense, dense, sparse, sparse, then a tail that ends mid-block, so that a
     * reader switches from direct to cached reads and back; scattered bytes sit on block and window edges.
     */
    private static byte[] mixed(long seed) {
        Random random = new Random(seed);
        byte[] b = new byte[5 * WINDOW + 3 * PAGE + 123];
        random.nextBytes(b);
        for (int w : new int[] {0, 3, 4}) {
            Arrays.fill(b, w * WINDOW, (w + 1) * WINDOW, (byte) 0);
        }
        for (int at : new int[] {
            0, PAGE - 1, PAGE, 3 * WINDOW, 3 * WINDOW + 77 * PAGE + 5, 4 * WINDOW - 1, 4 * WINDOW, 5 * WINDOW - 1
        }) {
            b[at] = (byte) (1 + random.nextInt(255));
        }
        return b;
    }

    @Test
    void readsBackExactlyWhatWasWrittenFromAnyOffsetDirectlyOrNot() throws IOException {
        byte[] content = mixed(1);
        Path file = sparseFile("mixed", content);
        long[] offsets = {
            0,
            1,
            32,
            PAGE,
            WINDOW - 1,
            WINDOW,
            WINDOW + 5,
            4 * WINDOW + 17,
            content.length - 1,
            content.length,
            content.length + 10
        };
        Random random = new Random(2);
        for (boolean direct : new boolean[] {true, false}) {
            for (long from : offsets) {
                byte[] expected = Arrays.copyOfRange(content, (int) Math.min(from, content.length), content.length);
                byte[] back = new byte[expected.length];
                try (SparseFileInput in = new SparseFileInput(file, from, direct)) {
                    // single bytes, small reads and reads across windows
                    for (int n = 0; n < back.length; ) {
                        if (random.nextInt(4) == 0) {
                            int b = in.read();
                            assertThat(b).as("byte %d from %d", n, from).isNotNegative();
                            back[n++] = (byte) b;
                        } else {
                            int want = 1 + random.nextInt(random.nextBoolean() ? 100 : 3 * WINDOW);
                            int got = in.read(back, n, Math.min(want, back.length - n));
                            assertThat(got)
                                    .as("read at byte %d from %d", n, from)
                                    .isPositive();
                            n += got;
                        }
                    }
                    assertThat(in.read()).isEqualTo(-1);
                    assertThat(in.read(new byte[10], 0, 10)).isEqualTo(-1);
                }
                assertThat(back).as("bytes from %d, direct %s", from, direct).isEqualTo(expected);

                CRC32C expectedCrc = new CRC32C();
                expectedCrc.update(expected);
                CRC32C crc = new CRC32C();
                try (SparseFileInput in = new SparseFileInput(file, from, direct)) {
                    assertThat(in.checksumRest(crc)).isEqualTo(expected.length);
                }
                assertThat(crc.getValue()).as("checksum from %d", from).isEqualTo(expectedCrc.getValue());
            }
        }
    }

    @Test
    void windowsMostlyOfZerosAreReadDirectlyAndTheOthersThroughTheCache() throws IOException {
        byte[] content = mixed(3);
        Path file = sparseFile("mixed", content);
        try (SparseFileInput in = new SparseFileInput(file, 0)) {
            in.transferTo(OutputStream.nullOutputStream());
            assumeThat(in.directBytes()).as("direct reads offered for " + tmp).isPositive();
            // window 0 first (direct), 1 after a sparse one (direct), 2 and 3 after dense ones (cached), 4 and the
            // tail after sparse ones (direct)
            assertThat(in.directBytes()).isEqualTo(2L * WINDOW + WINDOW + (content.length - 5L * WINDOW));
            assertThat(in.cachedBytes()).isEqualTo(2L * WINDOW);
        }
        try (SparseFileInput in = new SparseFileInput(file, 0, false)) {
            in.transferTo(OutputStream.nullOutputStream());
            assertThat(in.directBytes()).isZero();
            assertThat(in.cachedBytes()).isEqualTo(content.length);
        }
    }

    @Test
    void emptyAndTinyFilesReadAsTheyAre() throws IOException {
        for (int length : new int[] {0, 1, 100, PAGE, PAGE + 1}) {
            byte[] content = new byte[length];
            if (length > 0) {
                content[length - 1] = 9;
            }
            Path file = sparseFile("tiny-" + length, content);
            try (SparseFileInput in = new SparseFileInput(file, 0)) {
                assertThat(in.readAllBytes()).isEqualTo(content);
            }
        }
    }

    /**
     * A snapshot of a nearly empty store is mostly holes; reading it must not fill the page cache with their zeros.
     * Before direct reads, verifying and decoding such a snapshot cached every page of it (1 GiB for the default
     * bloom namespace). Whether a page is cached is asked of the kernel through a mapping (mincore); where that
     * cannot be told (a plain read of a hole leaves it uncached, as on tmpfs) or direct reads are refused, the test
     * does not apply.
     */
    @Test
    void loadingASparseSnapshotLeavesItsHolesOutOfThePageCache() throws IOException {
        byte[] payload = new byte[16 * WINDOW];
        payload[5] = 1;
        payload[9 * WINDOW + 100] = 2;
        SnapshotCodec<byte[]> codec = new SnapshotCodec<>() {
            @Override
            public void write(byte[] store, OutputStream out) throws IOException {
                out.write(store);
            }

            @Override
            public byte[] read(InputStream in) throws IOException {
                return in.readAllBytes();
            }
        };
        Path file = Snapshots.write(tmp, 7, codec, payload);
        Snapshots.Snapshot snapshot = new Snapshots.Snapshot(file, 7);

        assertThat(Snapshots.verify(snapshot)).isNull();
        assertThat(Snapshots.read(snapshot, codec)).isEqualTo(payload);

        long header = Snapshots.HEADER_BYTES;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long[] holes = {2, 5, 7}; // windows of the payload holding only holes
            boolean[] cached = new boolean[holes.length];
            for (int i = 0; i < holes.length; i++) {
                cached[i] = ch.map(FileChannel.MapMode.READ_ONLY, header + holes[i] * WINDOW, WINDOW)
                        .isLoaded();
            }
            // calibration, after the probes so that its read-ahead cannot reach them: a plain read of holes must show
            // as cached, or nothing can be told here
            ch.read(ByteBuffer.allocate(WINDOW), header + 12L * WINDOW);
            assumeThat(ch.map(FileChannel.MapMode.READ_ONLY, header + 12L * WINDOW, WINDOW)
                            .isLoaded())
                    .as("a plain read of holes shows in the page cache on " + tmp)
                    .isTrue();
            try (SparseFileInput probe = new SparseFileInput(file, 0)) {
                probe.read();
                assumeThat(probe.directBytes())
                        .as("direct reads offered for " + tmp)
                        .isPositive();
            }
            for (int i = 0; i < holes.length; i++) {
                assertThat(cached[i])
                        .as("window %d of holes cached after loading the snapshot", holes[i])
                        .isFalse();
            }
        }
    }

    @Test
    void aFileThatShrinksWhileReadEndsWhereItEnds() throws IOException {
        byte[] content = mixed(4);
        Path file = sparseFile("shrinking", content);
        for (boolean direct : new boolean[] {true, false}) {
            Files.write(file, content);
            try (SparseFileInput in = new SparseFileInput(file, 0, direct)) {
                byte[] first = in.readNBytes(10);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.truncate(2L * WINDOW + 100);
                }
                byte[] rest = in.readAllBytes();
                assertThat(first).isEqualTo(Arrays.copyOf(content, 10));
                assertThat(rest).isEqualTo(Arrays.copyOfRange(content, 10, 2 * WINDOW + 100));
            }
        }
    }

    @Test
    void aFileShorterThanItsFirstOffsetIsEmpty() throws IOException {
        Path file = sparseFile("short", new byte[] {1, 2, 3});
        try (SparseFileInput in = new SparseFileInput(file, 3)) {
            assertThat(in.read()).isEqualTo(-1);
            assertThat(in.available()).isZero();
        }
        assertThat(Files.size(file)).isEqualTo(3);
    }
}
