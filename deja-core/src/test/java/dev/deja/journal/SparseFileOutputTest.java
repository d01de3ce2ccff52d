package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SparseFileOutputTest {

    @TempDir
    Path tmp;

    /** Mostly zeros, with data blocks, short zero runs and scattered bytes; ends with zero blocks or not. */
    private static byte[] pattern(int length, boolean endsWithZeros, long seed) {
        Random random = new Random(seed);
        byte[] b = new byte[length];
        for (int i = 0; i < length; i += 1 + random.nextInt(3 * SparseFileOutput.BLOCK)) {
            b[i] = (byte) (1 + random.nextInt(255));
        }
        int dense = random.nextInt(length - 3 * SparseFileOutput.BLOCK);
        for (int i = dense; i < dense + 2 * SparseFileOutput.BLOCK + 17; i++) {
            b[i] = (byte) random.nextInt();
        }
        if (endsWithZeros) {
            Arrays.fill(b, length - 5 * SparseFileOutput.BLOCK, length, (byte) 0);
        } else {
            b[length - 1] = 42;
        }
        return b;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 100, 4096, 5000, 65536})
    void theFileReadsBackExactlyWhateverTheWriteSizes(int chunk) throws IOException {
        for (boolean endsWithZeros : new boolean[] {true, false}) {
            byte[] data = pattern(200_000, endsWithZeros, chunk);
            Path file = tmp.resolve("f-" + chunk + "-" + endsWithZeros);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap("header".getBytes(StandardCharsets.US_ASCII))); // an unaligned start
                OutputStream out = new SparseFileOutput(ch);
                for (int off = 0; off < data.length; off += chunk) {
                    out.write(data, off, Math.min(chunk, data.length - off));
                }
                out.flush();
                assertThat(ch.position()).as("position after flush").isEqualTo(6 + data.length);
            }
            byte[] written = Files.readAllBytes(file);
            assertThat(written).hasSize(6 + data.length);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.write("header".getBytes(StandardCharsets.US_ASCII));
            expected.write(data);
            assertThat(written)
                    .as("chunk %d, ends with zeros %s", chunk, endsWithZeros)
                    .isEqualTo(expected.toByteArray());
        }
    }

    @ParameterizedTest // whatever the sizes of the writes, and from an unaligned start
    @ValueSource(ints = {1000, 65536, 64 << 20})
    void zeroBlocksTakeNoDiskSpace(int chunk) throws Exception {
        Path file = tmp.resolve("sparse");
        byte[] mostlyZero = new byte[64 << 20];
        mostlyZero[123_456] = 1;
        mostlyZero[mostlyZero.length - 1] = 1;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[32]));
            OutputStream out = new SparseFileOutput(ch);
            for (int off = 0; off < mostlyZero.length; off += chunk) {
                out.write(mostlyZero, off, Math.min(chunk, mostlyZero.length - off));
            }
            out.flush();
            ch.force(true);
        }
        assertThat(Files.size(file)).isEqualTo(32 + (64 << 20));
        assertThat(Arrays.copyOfRange(Files.readAllBytes(file), 32, 32 + (64 << 20)))
                .isEqualTo(mostlyZero);
        // the file system's own count of allocated space (du), not the logical size
        Process du = new ProcessBuilder("du", "-k", file.toString())
                .redirectErrorStream(true)
                .start();
        String usage = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(du.waitFor()).as(usage).isZero();
        long kib = Long.parseLong(usage.split("\\s+", 2)[0]);
        assertThat(kib)
                .as("KiB allocated for a 64 MiB file holding two non-zero bytes")
                .isLessThan(1024);
    }
}
