package dev.deja.exact;

import dev.deja.seen.SeenSet;
import java.util.Arrays;

/**
 * The value the exact store keeps beside a key: its owner, when it was first seen, and how often it came again;
 * in a store created with values, also a small value and an optional expiry.
 *
 * <p>Layout (docs/FORMAT.md, "exact"): the difference {@code d} between the first-seen time and the creation time of
 * the generation the value is written in, both counted in whole time units since the epoch (the store's unit is
 * the first of 1 s, 2 s, 5 s, 10 s, 15 s, 30 s, 1 min, 2 min, 5 min, 10 min, 15 min, 30 min, 1 h, 2 h, ... that is
 * at least 1/256 of a slice, fixed when the store is created, so a key first seen in its own generation needs at
 * most a byte of information); then the owner as 8 little-endian bytes if it is not {@link SeenSet#NO_OWNER}; then
 * the duplicate count as a varint if it is not zero. The reader tells the optional fields apart by the bytes left
 * after the time: 0 (neither), 1 to 7 (count only, which is why counts saturate at 2^49 - 1), 8 (owner only),
 * more (both).
 *
 * <p>The time has two encodings, fixed per store ({@link #FORMAT_VARINT_TIME} for stores created before the second
 * existed). {@link #FORMAT_BYTE_TIME}: one byte {@code d} for {@code 0 <= d <= 254}, else the byte 0xFF and an unsigned
 * LEB128 varint of zigzag({@code d}); a key recorded without owner in its own slice costs one value byte.
 * {@link #FORMAT_VARINT_TIME}: the varint of zigzag({@code d}) alone, two bytes from {@code d = 64} on. The byte form
 * keeps most values one byte long, which matters in a sealed generation: ZSTD codes the table's bytes mostly as
 * literals, so a second value byte and a value length that varies each cost about a byte per key on disk. {@code d} is
 * negative only for a key copied forward by refresh-on-duplicate, and exceeds 254 only in a slice of more than 254
 * units or a generation kept open past its slice (a size-only store).
 *
 * <p>The key-value layout (a store created with values) inserts two fields after the time: the expiry as a varint
 * (0 for none, else the zigzag-encoded difference in milliseconds between the expiry and the generation's creation,
 * plus 1), then the value's length as a varint and its bytes. Owner and count follow as above. A store uses one
 * layout for its whole life; the other layout's fields are neither written nor read.
 *
 * @param owner       the owner, {@link SeenSet#NO_OWNER} for none
 * @param firstSeen   epoch millisecond of the first sighting
 * @param duplicates  times reported {@code DUPLICATE} since (0 when the store does not count)
 * @param expiresAt   epoch millisecond at which the key stops being held, 0 for none (key-value layout only)
 * @param data        the key's value, empty for none (key-value layout only)
 */
@SuppressWarnings("ArrayRecordComponent") // equals and hashCode below use the array's content
record StoredValue(long owner, long firstSeen, long duplicates, long expiresAt, byte[] data) {

    /** The largest count a 7-byte varint holds; counts stop there rather than become ambiguous with an owner. */
    static final long MAX_DUPLICATES = (1L << 49) - 1;

    static final byte[] NO_DATA = new byte[0];

    /** A value of the seen-set: no expiry, no data. */
    StoredValue(long owner, long firstSeen, long duplicates) {
        this(owner, firstSeen, duplicates, 0, NO_DATA);
    }

    StoredValue {
        if (data == null) {
            data = NO_DATA;
        }
    }

    /** Time as a varint of its zigzag encoding: stores created without a {@code value-format} entry. */
    static final int FORMAT_VARINT_TIME = 1;
    /** Time as one byte when it is 0 to 254 units after the generation's start: stores created since. */
    static final int FORMAT_BYTE_TIME = 2;
    /** The format new stores are created with; the newest this version reads. */
    static final int CURRENT_FORMAT = FORMAT_BYTE_TIME;
    /** In {@link #FORMAT_BYTE_TIME}, the first byte that announces a varint instead of holding the time. */
    private static final int TIME_ESCAPE = 0xFF;

    /** This value with one more duplicate, saturating at {@link #MAX_DUPLICATES}. */
    StoredValue plusDuplicate() {
        return new StoredValue(owner, firstSeen, Math.min(duplicates + 1, MAX_DUPLICATES), expiresAt, data);
    }

    /** Whether the key's own expiry has passed at {@code nowMillis}: expired keys are not held. */
    boolean expiredAt(long nowMillis) {
        return expiresAt != 0 && expiresAt <= nowMillis;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredValue v
                && owner == v.owner
                && firstSeen == v.firstSeen
                && duplicates == v.duplicates
                && expiresAt == v.expiresAt
                && Arrays.equals(data, v.data);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(owner) * 31
                + Long.hashCode(firstSeen) * 17
                + Long.hashCode(expiresAt)
                + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "StoredValue[owner=" + owner + ", firstSeen=" + firstSeen + ", duplicates=" + duplicates + ", expiresAt="
                + expiresAt + ", data=" + data.length + " bytes]";
    }

    /**
     * The bytes written for this value in a generation created at {@code baseMillis}. Times are counted in whole
     * units since the epoch (rounded down, so a time reads back up to one unit early) and stored as the difference
     * from the generation's unit; a value copied to another generation therefore keeps its time exactly.
     * {@code format} is the store's, {@link #FORMAT_VARINT_TIME} or {@link #FORMAT_BYTE_TIME}.
     */
    byte[] encode(long baseMillis, long unitMillis, int format) {
        return encode(baseMillis, unitMillis, format, false);
    }

    /** {@link #encode(long, long, int)} in the key-value layout when {@code withData}, else the seen-set layout. */
    byte[] encode(long baseMillis, long unitMillis, int format, boolean withData) {
        long delta = Math.floorDiv(firstSeen, unitMillis) - Math.floorDiv(baseMillis, unitMillis);
        byte[] buf = new byte[1 + 10 + (withData ? 10 + 5 + data.length : 0) + 8 + 7];
        int n;
        if (format == FORMAT_VARINT_TIME) {
            n = putVarint(buf, 0, zigzag(delta));
        } else if (delta >= 0 && delta < TIME_ESCAPE) {
            buf[0] = (byte) delta;
            n = 1;
        } else {
            buf[0] = (byte) TIME_ESCAPE;
            n = putVarint(buf, 1, zigzag(delta));
        }
        if (withData) {
            // Unsigned: the zigzag of any difference of two non-negative longs fits in 64 bits, plus 1 as well.
            n = putVarint(buf, n, expiresAt == 0 ? 0 : zigzag(expiresAt - baseMillis) + 1);
            n = putVarint(buf, n, data.length);
            System.arraycopy(data, 0, buf, n, data.length);
            n += data.length;
        }
        if (owner != SeenSet.NO_OWNER) {
            for (int i = 0; i < 8; i++) {
                buf[n++] = (byte) (owner >>> (8 * i));
            }
        }
        if (duplicates != 0) {
            n = putVarint(buf, n, duplicates);
        }
        return Arrays.copyOf(buf, n);
    }

    /** Reads a value written in a generation created at {@code baseMillis} with the given time unit and format. */
    static StoredValue decode(byte[] value, long baseMillis, long unitMillis, int format) {
        return decode(value, baseMillis, unitMillis, format, false);
    }

    /** {@link #decode(byte[], long, long, int)} of the key-value layout when {@code withData}. */
    static StoredValue decode(byte[] value, long baseMillis, long unitMillis, int format, boolean withData) {
        long[] cursor = {0};
        long delta;
        if (format != FORMAT_VARINT_TIME && value.length > 0 && (value[0] & 0xFF) != TIME_ESCAPE) {
            delta = value[0] & 0xFF;
            cursor[0] = 1;
        } else {
            if (format != FORMAT_VARINT_TIME) {
                cursor[0] = 1;
            }
            delta = unzigzag(getVarint(value, cursor));
        }
        long firstSeen = (Math.floorDiv(baseMillis, unitMillis) + delta) * unitMillis;
        long expiresAt = 0;
        byte[] data = NO_DATA;
        if (withData) {
            long expiry = getVarint(value, cursor);
            expiresAt = expiry == 0 ? 0 : baseMillis + unzigzag(expiry - 1);
            long length = getVarint(value, cursor);
            int start = (int) cursor[0];
            if (length < 0 || length > value.length - start) {
                throw new IllegalStateException("corrupt exact-store value: value length " + length + " exceeds the "
                        + (value.length - start) + " bytes left");
            }
            data = Arrays.copyOfRange(value, start, start + (int) length);
            cursor[0] = start + length;
        }
        int pos = (int) cursor[0];
        int rest = value.length - pos;
        long owner = SeenSet.NO_OWNER;
        if (rest >= 8) {
            for (int i = 0; i < 8; i++) {
                owner |= (value[pos + i] & 0xFFL) << (8 * i);
            }
            cursor[0] = pos + 8L;
            rest -= 8;
        }
        long duplicates = rest > 0 ? getVarint(value, cursor) : 0;
        return new StoredValue(owner, firstSeen, duplicates, expiresAt, data);
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzigzag(long z) {
        return (z >>> 1) ^ -(z & 1);
    }

    private static int putVarint(byte[] buf, int pos, long v) {
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
        return pos;
    }

    private static long getVarint(byte[] buf, long[] cursor) {
        int pos = (int) cursor[0];
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            if (pos >= buf.length || shift > 63) {
                throw new IllegalStateException("corrupt exact-store value: truncated varint");
            }
            byte b = buf[pos++];
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                cursor[0] = pos;
                return v;
            }
        }
    }
}
