package dev.deja.hash;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import dev.deja.checks.Require;
import java.util.List;

/**
 * The one canonical hash of a key: XXH3-128 (seed 0) of its bytes, as two 64-bit halves.
 *
 * <p>Every index a store needs (bloom block and bits, recent bucket and fingerprint, shard) is derived from these
 * 128 bits by the arithmetic in {@code docs/FORMAT.md}, so a client in any language with an XXH3 implementation
 * computes the same answers. {@code high} is the most significant half of the 128-bit value as XXH3 defines it
 * (bytes 0..7 of its canonical big-endian form), {@code low} the least significant half.
 *
 * @param high the most significant 64 bits
 * @param low  the least significant 64 bits
 */
public record Hash128(long high, long low) {

    private static final Hasher128 XXH3_128 = Hashing.xxh3_128();

    /** The hash id written into every serialised structure that depends on it. */
    public static final int HASH_ID_XXH3_128 = 1;

    /** Hashes a key; rejects null and empty keys with a message that says so. */
    public static Hash128 of(byte[] key) {
        // The commonest id lengths (a binary UUID is 16 bytes) first: one unsigned compare of the length, where the
        // general path below tests for an empty key, for the lengths Xxh3Short covers and for 16 bytes or fewer.
        if (key != null && key.length > 8 && key.length <= 16) {
            return Xxh3Short.hash9To16(key, 0, key.length, Hash128::new);
        }
        return of(Require.key(key), 0, key.length);
    }

    /**
     * Hashes {@code length} bytes of {@code buffer} from {@code offset} as the key they hold: the same hash as
     * {@link #of(byte[])} of a copy of them, without the copy (for keys read into a reusable buffer).
     *
     * @throws IllegalArgumentException if the buffer is null, the length not positive, or the range not inside it
     */
    public static Hash128 of(byte[] buffer, int offset, int length) {
        Require.nonNull("buffer", buffer);
        Require.positive("length", length);
        if (offset < 0 || offset > buffer.length - length) { // no overflow: both lengths are non-negative ints
            throw new IllegalArgumentException("offset " + offset + " and length " + length
                    + " must lie inside the buffer of " + buffer.length + " bytes");
        }
        if (Xxh3Short.covers(length)) {
            return Xxh3Short.hash(buffer, offset, length, Hash128::new);
        }
        HashValue128 v = XXH3_128.hashBytesTo128Bits(buffer, offset, length);
        return new Hash128(v.getMostSignificantBits(), v.getLeastSignificantBits());
    }

    /**
     * Hashes many keys into {@code high, low} pairs: key {@code i} is at {@code 2i} and {@code 2i+1}, the form the
     * batch operations take ({@link dev.deja.seen.HashedSeenSet#checkThenAddHashes}).
     */
    public static long[] ofAll(List<byte[]> keys) {
        Require.nonNull("keys", keys);
        long[] hashes = new long[2 * keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            Hash128 h = of(keys.get(i));
            hashes[2 * i] = h.high();
            hashes[2 * i + 1] = h.low();
        }
        return hashes;
    }

    /**
     * Maps a 64-bit hash uniformly onto [0, n) without division (Lemire's multiply-high reduction), with the hash
     * read as an unsigned number. Used for every index so filters larger than 2^32 slots work.
     */
    public static long reduce(long hash, long n) {
        return Math.unsignedMultiplyHigh(hash, n);
    }
}
