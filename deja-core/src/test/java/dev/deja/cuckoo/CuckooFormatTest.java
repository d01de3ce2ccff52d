package dev.deja.cuckoo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.hash.Hash128;
import dev.deja.seen.Verdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CuckooFormatTest {

    private static byte[] key(long i) {
        return ByteBuffer.allocate(12).putInt(0x6b657973).putLong(i).array();
    }

    private static byte[] bytes(CuckooFilter filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return out.toByteArray();
    }

    /** A grown filter with copies and deletes, so every part of the format is exercised. */
    private static CuckooFilter grown() {
        CuckooFilter filter = CuckooFilter.create(64, 2, 20, 2);
        for (int i = 0; i < 400; i++) {
            filter.insert(key(i));
        }
        filter.insert(key(7));
        filter.forget(key(8));
        return filter;
    }

    @Test
    void aFilterReadBackAnswersAsTheOriginalAndGoesOnTheSameWay() throws IOException {
        CuckooFilter original = grown();
        assertThat(original.tables()).isGreaterThan(1);
        CuckooFilter read = CuckooFilter.readFrom(new ByteArrayInputStream(bytes(original)));

        assertThat(read.tables()).isEqualTo(original.tables());
        assertThat(read.items()).isEqualTo(original.items());
        assertThat(read.deletes()).isEqualTo(1);
        assertThat(read.capacity()).isEqualTo(64);
        assertThat(read.expansion()).isEqualTo(2);
        for (int i = 0; i < 1000; i++) {
            assertThat(read.count(key(i))).as("key %d", i).isEqualTo(original.count(key(i)));
        }
        // the same inserts leave both in the same state, byte for byte
        for (int i = 1000; i < 1400; i++) {
            original.insert(key(i));
            read.insert(key(i));
        }
        assertThat(bytes(read)).isEqualTo(bytes(original));
    }

    @Test
    void aCopySharesNothingWithTheFilter() throws IOException {
        CuckooFilter filter = grown();
        CuckooFilter copy = filter.copy();
        byte[] before = bytes(copy);
        filter.insert(key(5000));
        filter.forget(key(1));
        assertThat(bytes(copy)).isEqualTo(before);
        assertThat(copy.count(key(5000))).isZero();
    }

    @Test
    void anotherCopyOwnerInsertsACopyEvenWhenHeld() {
        CuckooFilter filter = CuckooFilter.create(1000);
        Hash128 h = Hash128.of(key(3));
        assertThat(filter.checkThenAddHash(h.high(), h.low(), CuckooFilter.ANOTHER_COPY))
                .isEqualTo(Verdict.NEW);
        assertThat(filter.checkThenAddHash(h.high(), h.low(), CuckooFilter.ANOTHER_COPY))
                .isEqualTo(Verdict.NEW);
        assertThat(filter.checkThenAddHash(h.high(), h.low(), 0)).isEqualTo(Verdict.DUPLICATE);
        assertThat(filter.count(key(3))).isEqualTo(2);
    }

    @Test
    void aBatchAnswersRetryForTheKeysAFullFilterHasNoRoomForAndRecordsTheOthers() {
        CuckooFilter filter = CuckooFilter.create(2, 2, 20, 0); // one bucket of two slots
        long[] hashes = new long[8];
        long[] owners = new long[4];
        Arrays.fill(owners, CuckooFilter.ANOTHER_COPY);
        for (int i = 0; i < 4; i++) {
            Hash128 h = Hash128.of(key(1));
            hashes[2 * i] = h.high();
            hashes[2 * i + 1] = h.low();
        }
        Verdict[] out = new Verdict[4];
        filter.checkThenAddHashes(hashes, owners, out);
        assertThat(out).containsExactly(Verdict.NEW, Verdict.NEW, Verdict.RETRY, Verdict.RETRY);
        assertThat(filter.items()).isEqualTo(2);
    }

    @Test
    void damagedInputIsRefusedWithAClearError() throws IOException {
        byte[] good = bytes(grown());

        byte[] magic = good.clone();
        magic[0] = 'X';
        assertRefused(magic, "bad magic");

        byte[] version = good.clone();
        version[4] = 9;
        assertRefused(version, "unsupported cuckoo filter format version 9");

        byte[] header = good.clone();
        header[20] ^= 1; // max iterations
        assertRefused(header, "header: checksum mismatch");

        byte[] table = good.clone();
        table[CuckooFormat.HEADER_BYTES + 4 + 10] ^= 0x40;
        assertRefused(table, "table checksum mismatch");

        assertThatThrownBy(() -> CuckooFilter.readFrom(new ByteArrayInputStream(Arrays.copyOf(good, 30))))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("truncated cuckoo filter: header");
        assertThatThrownBy(
                        () -> CuckooFilter.readFrom(new ByteArrayInputStream(Arrays.copyOf(good, good.length - 100))))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("truncated cuckoo filter: table");
    }

    private static void assertRefused(byte[] damaged, String message) {
        assertThatThrownBy(() -> CuckooFilter.readFrom(new ByteArrayInputStream(damaged)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(message);
    }
}
