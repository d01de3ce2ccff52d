package dev.deja.recent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.seen.Verdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RecentCodecTest {

    private static final int KEYS = 50_000;

    @Test
    void aWrittenFilterReadsBackWithTheSameAnswers() throws IOException {
        for (int ways : new int[] {1, 8, 16}) {
            for (boolean owners : new boolean[] {false, true}) {
                RecentFilter original = filled(ways, owners);
                byte[] bytes = write(original);
                int setBytes = ways * 8 * (owners ? 2 : 1);
                assertThat(bytes).hasSize(RecentCodec.HEADER_BYTES + (int) (original.buckets() / ways) * setBytes + 4);

                RecentFilter copy = RecentFilter.readFrom(new ByteArrayInputStream(bytes), 4); // chunked differently
                assertThat(copy.buckets()).isEqualTo(original.buckets());
                assertThat(copy.ways()).isEqualTo(ways);
                assertThat(copy.hasOwners()).isEqualTo(owners);
                assertThat(copy.stats()).isEqualTo(original.stats());
                for (long i = 0; i < KEYS + 1000; i++) { // the last 1000 were never added
                    byte[] key = Keys.of(7, i);
                    assertThat(copy.check(key)).isEqualTo(original.check(key));
                }
                if (owners) { // owners survive: the same owner is told RETRY
                    for (long i = KEYS - 100; i < KEYS; i++) {
                        assertThat(copy.checkThenAdd(Keys.of(7, i), i + 1))
                                .isEqualTo(original.checkThenAdd(Keys.of(7, i), i + 1));
                    }
                    assertThat(copy.checkThenAdd(Keys.of(7, KEYS - 1), KEYS)).isEqualTo(Verdict.RETRY);
                }
                assertThat(write(RecentFilter.readFrom(new ByteArrayInputStream(bytes))))
                        .isEqualTo(bytes);
            }
        }
    }

    @Test
    void theHeaderIsAsDocumented() throws IOException {
        RecentFilter filter =
                RecentFilter.builder().buckets(64).ways(8).owners(true).build();
        filter.add("a".getBytes(StandardCharsets.UTF_8), 5);
        byte[] b = write(filter);
        assertThat(Arrays.copyOf(b, 5)).isEqualTo(new byte[] {'D', 'E', 'J', 'A', 'R'});
        assertThat(b[5]).isEqualTo((byte) 1); // format version
        assertThat(b[6]).isEqualTo((byte) 1); // hash id 1 = XXH3-128, little-endian u16
        assertThat(b[8]).isEqualTo((byte) 8); // ways
        assertThat(b[9]).isEqualTo((byte) 1); // flags: owners
        assertThat(b[16]).isEqualTo((byte) 64); // buckets, little-endian u64
        assertThat(b[24]).isEqualTo((byte) 1); // insertions
    }

    @Test
    void everyTruncationIsReportedAsSuch() throws IOException {
        byte[] bytes = write(filled(4, true));
        for (int length : new int[] {
            0,
            3,
            RecentCodec.HEADER_BYTES - 1,
            RecentCodec.HEADER_BYTES,
            RecentCodec.HEADER_BYTES + 100,
            bytes.length - 4,
            bytes.length - 1
        }) {
            assertThatThrownBy(() -> RecentFilter.readFrom(new ByteArrayInputStream(Arrays.copyOf(bytes, length))))
                    .as("truncated to %d bytes", length)
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("truncated recent filter");
        }
    }

    @Test
    void corruptionIsDetectedWherever() throws IOException {
        byte[] bytes = write(filled(8, false));
        assertThatThrownBy(() -> read(flip(bytes, 0))).hasMessageContaining("not a deja recent filter");
        assertThatThrownBy(() -> read(flip(bytes, 4))).hasMessageContaining("not a deja recent filter");
        assertThatThrownBy(() -> read(flip(bytes, 20))).hasMessageContaining("header checksum");
        assertThatThrownBy(() -> read(flip(bytes, RecentCodec.HEADER_BYTES + 1000)))
                .hasMessageContaining("body checksum");
        assertThatThrownBy(() -> read(flip(bytes, bytes.length - 2))).hasMessageContaining("body checksum");

        byte[] future = bytes.clone();
        future[5] = 2;
        assertThatThrownBy(() -> read(future)).hasMessageContaining("unsupported recent filter format version 2");
    }

    @Test
    void aHeaderClaimingMoreBucketsThanTheStreamHoldsEndsInTruncationNotInAnAllocation() {
        for (int exponent = 30; exponent <= 36; exponent++) {
            long buckets = 1L << exponent;
            assertThatThrownBy(() -> read(forgedHeader(buckets, 8, RecentCodec.FLAG_OWNERS)))
                    .as("2^%d buckets", exponent)
                    .isInstanceOf(EOFException.class)
                    .hasMessage("truncated recent filter: body ends after 0 of " + buckets * 16 + " bytes");
        }
        // With a megabyte of (valid, empty) body, the arrays hold what was read, not the 1 TiB the header claims.
        byte[] header = forgedHeader(1L << 36, 8, RecentCodec.FLAG_OWNERS);
        byte[] stream = Arrays.copyOf(header, header.length + (1 << 20));
        long allocated = dev.deja.seen.Allocations.of(() -> read(stream));
        assertThat(allocated).isLessThan(16L << 20);
    }

    /**
     * Sets the filter never writes, with correct checksums: a fingerprint held twice in one set (a forget would
     * erase one copy and leave the key), a full slot after an empty one, an empty slot with an owner. Each is
     * refused naming the set; so is a header whose reserved bytes are not zero.
     */
    @Test
    void forgedSetsAreRefusedThoughTheirChecksumsAreRight() {
        long a = 0x1234_5678_9ABC_DEF0L;
        assertThatThrownBy(() -> read(forged(4, false, new long[] {a, 7, a, 0})))
                .isInstanceOf(IOException.class)
                .hasMessage("corrupt recent filter: set 0 holds fingerprint " + Long.toHexString(a)
                        + " twice (slots 0 and 2)");
        assertThatThrownBy(() -> read(forged(4, false, new long[] {a, 0, 7, 0})))
                .isInstanceOf(IOException.class)
                .hasMessage("corrupt recent filter: set 0 is malformed");
        assertThatThrownBy(() -> read(forged(4, true, new long[] {a, 0, 0, 0, 1, 2, 0, 0})))
                .isInstanceOf(IOException.class)
                .hasMessage("corrupt recent filter: set 0 is malformed");
        assertThatCode(() -> read(forged(4, true, new long[] {a, 7, 0, 0, 1, 2, 0, 0})))
                .doesNotThrowAnyException();

        byte[] reserved = forged(4, false, new long[] {a, 7, 0, 0}, new byte[] {0, 0, 1, 0, 0, 0});
        assertThatThrownBy(() -> read(reserved))
                .isInstanceOf(IOException.class)
                .hasMessage("corrupt recent filter: header bytes 10 to 15 are reserved and must be 0");
    }

    /** A filter of one set of {@code ways} buckets holding {@code set} (fingerprints, then owners), checksums right. */
    private static byte[] forged(int ways, boolean owners, long[] set) {
        return forged(ways, owners, set, new byte[6]);
    }

    /** {@link #forged(int, boolean, long[])} with the header's six reserved bytes as given. */
    private static byte[] forged(int ways, boolean owners, long[] set, byte[] reserved) {
        ByteBuffer body = ByteBuffer.allocate(set.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long word : set) {
            body.putLong(word);
        }
        CRC32C crc = new CRC32C();
        crc.update(body.array());
        ByteBuffer stream = ByteBuffer.allocate(RecentCodec.HEADER_BYTES + body.capacity() + 4)
                .order(ByteOrder.LITTLE_ENDIAN);
        stream.put(forgedHeader(ways, ways, owners ? RecentCodec.FLAG_OWNERS : 0, reserved))
                .put(body.array())
                .putInt((int) crc.getValue());
        return stream.array();
    }

    /** A header with a correct checksum for any shape, as anyone can write one. */
    private static byte[] forgedHeader(long buckets, int ways, int flags) {
        return forgedHeader(buckets, ways, flags, new byte[6]);
    }

    private static byte[] forgedHeader(long buckets, int ways, int flags, byte[] reserved) {
        ByteBuffer h = ByteBuffer.allocate(RecentCodec.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        h.put(RecentCodec.MAGIC)
                .put(RecentCodec.KIND_RECENT)
                .put(RecentCodec.FORMAT_VERSION)
                .putShort((short) 1)
                .put((byte) ways)
                .put((byte) flags)
                .put(reserved)
                .putLong(buckets)
                .putLong(0);
        CRC32C crc = new CRC32C();
        crc.update(h.array(), 0, RecentCodec.HEADER_BYTES - 4);
        h.putInt((int) crc.getValue());
        return h.array();
    }

    private static RecentFilter filled(int ways, boolean owners) {
        RecentFilter filter = RecentFilter.builder()
                .buckets(4096L * ways / 4)
                .ways(ways)
                .owners(owners)
                .build();
        for (long i = 0; i < KEYS; i++) {
            filter.add(Keys.of(7, i), owners ? i + 1 : 0);
        }
        return filter;
    }

    private static byte[] write(RecentFilter filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return out.toByteArray();
    }

    private static RecentFilter read(byte[] bytes) throws IOException {
        return RecentFilter.readFrom(new ByteArrayInputStream(bytes));
    }

    private static byte[] flip(byte[] bytes, int at) {
        byte[] copy = bytes.clone();
        copy[at] ^= 0x10;
        return copy;
    }
}
