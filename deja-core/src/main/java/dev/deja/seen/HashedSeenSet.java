package dev.deja.seen;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import java.util.List;

/**
 * A seen-set that keeps only the 128-bit hash of each key ({@link Hash128}), such as bloom and recent.
 *
 * <p>Its hashed operations are public so that callers that already hold the hash (the server's journal replay,
 * batch paths) do not hash twice. The byte-array operations hash the key and delegate.
 */
public interface HashedSeenSet extends SeenSet {

    /** {@link #check(byte[])} on a key's hash. */
    boolean checkHash(long high, long low);

    /** {@link #add(byte[], long)} on a key's hash. */
    void addHash(long high, long low, long owner);

    /** {@link #checkThenAdd(byte[], long)} on a key's hash. */
    Verdict checkThenAddHash(long high, long low, long owner);

    /** {@link #forget(byte[], long)} on a key's hash. */
    boolean forgetHash(long high, long low, long owner);

    /**
     * {@link #checkThenAddHash} for each key, in order, with the same answers as single calls: key {@code i} is
     * {@code hashes[2i]} (high) and {@code hashes[2i+1]} (low), its owner {@code owners[i]} ({@link #NO_OWNER} when
     * {@code owners} is null), its answer {@code out[i]}. A store overrides it when it can do a batch faster.
     *
     * @throws IllegalArgumentException before recording any key, when an array is null or of the wrong length
     */
    default void checkThenAddHashes(long[] hashes, long[] owners, Verdict[] out) {
        Require.hashBatch(hashes, owners, out);
        for (int i = 0; i < out.length; i++) {
            out[i] = checkThenAddHash(hashes[2 * i], hashes[2 * i + 1], owners == null ? NO_OWNER : owners[i]);
        }
    }

    /** {@link #addHash} for each key, in order, every key hashed (and so checked) before the first is recorded. */
    @Override
    default void addAll(List<byte[]> keys) {
        checkThenAddAll(keys, null);
    }

    /**
     * {@link #checkThenAddHashes} of every key's hash: a null or empty key anywhere in the batch is refused before the
     * first key is recorded, so a refused batch changes nothing.
     */
    @Override
    default Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        long[] hashes = Hash128.ofAll(keys);
        Verdict[] out = new Verdict[keys.size()];
        checkThenAddHashes(hashes, owners, out);
        return out;
    }

    /**
     * {@link #forgetHash} for each key, in order, laid out as {@link #checkThenAddHashes}: its answer in
     * {@code out[i]}. A store whose single calls refuse some owners checks them all first, so that a refused batch
     * erases nothing.
     *
     * @throws IllegalArgumentException before erasing any key, when an array is null or of the wrong length
     */
    default void forgetHashes(long[] hashes, long[] owners, boolean[] out) {
        Require.hashBatch(hashes, owners, out);
        for (int i = 0; i < out.length; i++) {
            out[i] = forgetHash(hashes[2 * i], hashes[2 * i + 1], owners == null ? NO_OWNER : owners[i]);
        }
    }

    /** {@link #forgetHashes} of every key's hash, every key hashed (and so checked) before the first is erased. */
    @Override
    default boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        long[] hashes = Hash128.ofAll(keys);
        boolean[] out = new boolean[keys.size()];
        forgetHashes(hashes, owners, out);
        return out;
    }

    @Override
    default boolean check(byte[] key) {
        Hash128 h = Hash128.of(key);
        return checkHash(h.high(), h.low());
    }

    @Override
    default void add(byte[] key, long owner) {
        Hash128 h = Hash128.of(key);
        addHash(h.high(), h.low(), owner);
    }

    @Override
    default Verdict checkThenAdd(byte[] key, long owner) {
        Hash128 h = Hash128.of(key);
        return checkThenAddHash(h.high(), h.low(), owner);
    }

    @Override
    default boolean forget(byte[] key, long owner) {
        Hash128 h = Hash128.of(key);
        return forgetHash(h.high(), h.low(), owner);
    }
}
