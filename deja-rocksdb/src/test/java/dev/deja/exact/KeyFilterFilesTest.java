package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The file a closed exact store keeps a generation's key filter in: read back exactly, or refused clearly. */
class KeyFilterFilesTest {

    private static final String NAME = "g000000000003-1790000000000";

    private static Hash128 key(long i) {
        return Hash128.of(ByteBuffer.allocate(8).putLong(i).array());
    }

    /** A filter of 200,000 keys: past its first two parts' capacity, so it has grown a third. */
    private static KeyFilter filter() {
        KeyFilter filter = KeyFilter.forNewGeneration(0);
        for (int i = 0; i < 200_000; i++) {
            Hash128 h = key(i);
            filter.add(h.high(), h.low());
        }
        return filter;
    }

    private static byte[] bytes(KeyFilter filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KeyFilterFiles.write(out, NAME, filter);
        return out.toByteArray();
    }

    @Test
    void aFilterReadBackHoldsEveryKeyAndAnswersAsTheOriginal() throws IOException {
        KeyFilter original = filter();
        KeyFilter read = KeyFilterFiles.read(new ByteArrayInputStream(bytes(original)), NAME);
        assertThat(read.complete()).isTrue();
        assertThat(read.parts()).isEqualTo(original.parts()).isEqualTo(3);
        assertThat(read.keys()).isEqualTo(original.keys());
        for (int i = 0; i < 400_000; i++) {
            Hash128 h = key(i);
            assertThat(read.mayContain(h.high(), h.low())).isEqualTo(original.mayContain(h.high(), h.low()));
        }
        // It keeps growing as the original would: the restored capacity counts every part (64 Ki + 128 Ki + 256 Ki
        // keys), so a fourth part comes only past 458,752 keys.
        for (int i = 200_000; i < 450_000; i++) {
            Hash128 h = key(i);
            read.add(h.high(), h.low());
        }
        assertThat(read.parts()).isEqualTo(original.parts());
        for (int i = 450_000; i < 500_000; i++) {
            Hash128 h = key(i);
            read.add(h.high(), h.low());
        }
        assertThat(read.parts()).isEqualTo(original.parts() + 1);
    }

    @Test
    void damagedForeignOrTruncatedFilesAreRefusedWithTheReason() throws IOException {
        byte[] good = bytes(filter());
        assertThatThrownBy(() -> KeyFilterFiles.read(new ByteArrayInputStream(good), "g000000000004-1790000000000"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not g000000000004");
        byte[] badMagic = good.clone();
        badMagic[0] ^= 1;
        assertThatThrownBy(() -> read(badMagic)).hasMessageContaining("bad magic");
        byte[] badHeader = good.clone();
        badHeader[9] ^= 1; // inside the key count
        assertThatThrownBy(() -> read(badHeader)).hasMessageContaining("checksum mismatch");
        byte[] badBits = good.clone();
        badBits[good.length / 2] ^= 1; // inside a part's bit array
        assertThatThrownBy(() -> read(badBits)).hasMessageContaining("checksum mismatch");
        assertThatThrownBy(() -> read(Arrays.copyOf(good, good.length - 1))).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> read(Arrays.copyOf(good, 10))).hasMessageContaining("truncated");
        byte[] longer = Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> read(longer)).hasMessageContaining("continues after its last part");
    }

    private static KeyFilter read(byte[] bytes) throws IOException {
        return KeyFilterFiles.read(new ByteArrayInputStream(bytes), NAME);
    }
}
