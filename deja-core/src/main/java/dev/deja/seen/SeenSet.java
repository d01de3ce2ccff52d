package dev.deja.seen;

import dev.deja.checks.Require;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A set of message ids that answers "have I seen this id before?", with a declared error direction.
 *
 * <p>Keys are arbitrary non-empty byte arrays (string overloads encode UTF-8); only a filter migrated from Guava also
 * takes the empty key, as Guava did. An owner is an opaque 64-bit value the caller attaches to a key, typically a Kafka
 * partition and offset (as in Tapjoy's Redis design); {@link #NO_OWNER} means none. Every implementation is
 * thread-safe, and {@link #checkThenAdd(byte[], long)} is linearizable per key: when many threads race on the same new
 * key, exactly one of them is told {@link Verdict#NEW}.
 *
 * <p>Batch forms answer in the order of their input and behave exactly as the single calls made one after
 * another, so a key repeated inside one batch is {@code NEW} the first time and {@code DUPLICATE} after.
 *
 * <p>What a store may get wrong is given by {@link #guarantee()}; its live error estimate by {@link #stats()}.
 */
public interface SeenSet extends AutoCloseable {

    /** The owner of a key recorded without one. Owners equal to it never produce {@link Verdict#RETRY}. */
    long NO_OWNER = 0L;

    /** Whether the key is held (seen, within the window). */
    boolean check(byte[] key);

    /** Records the key without an owner. */
    default void add(byte[] key) {
        add(key, NO_OWNER);
    }

    /** Records the key under the given owner; a key already held keeps its first owner. */
    void add(byte[] key, long owner);

    /** Atomically records the key and says whether it was new. Same as {@code checkThenAdd(key, NO_OWNER)}. */
    default Verdict checkThenAdd(byte[] key) {
        return checkThenAdd(key, NO_OWNER);
    }

    /**
     * Atomically records the key under the owner and says what it was: {@link Verdict#NEW}, {@link
     * Verdict#DUPLICATE}, or {@link Verdict#RETRY} when it is held under this same owner (not {@link #NO_OWNER}).
     */
    Verdict checkThenAdd(byte[] key, long owner);

    /**
     * Erases the key if it is still held under this owner (any owner when {@code owner} is {@link #NO_OWNER}), so that
     * a message whose processing failed can be delivered again (as the NSQ de-duplication design asks).
     *
     * @return whether the key was held (as ours) and is now erased
     * @throws UnsupportedOperationException if this kind of store cannot erase keys (bloom)
     */
    boolean forget(byte[] key, long owner);

    /** Erases the key, whoever owns it. */
    default boolean forget(byte[] key) {
        return forget(key, NO_OWNER);
    }

    /** The one error this store may make. */
    Guarantee guarantee();

    /** Live statistics and the current error estimate. */
    SeenStats stats();

    // ---- batch forms: the fast path everywhere ----

    /** {@link #check(byte[])} for each key, in order. */
    default boolean[] checkAll(List<byte[]> keys) {
        Require.nonNull("keys", keys);
        boolean[] out = new boolean[keys.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = check(keys.get(i));
        }
        return out;
    }

    /** {@link #add(byte[])} for each key, in order; a batch holding a null key is refused before any is recorded. */
    default void addAll(List<byte[]> keys) {
        noNullKey(keys);
        for (byte[] key : keys) {
            add(key, NO_OWNER);
        }
    }

    /** {@link #checkThenAdd(byte[])} for each key, in order. */
    default Verdict[] checkThenAddAll(List<byte[]> keys) {
        return checkThenAddAll(keys, null);
    }

    /**
     * {@link #checkThenAdd(byte[], long)} for each key with the owner at the same index, in order.
     *
     * @param owners one owner per key, or {@code null} for none
     */
    default Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        noNullKey(keys);
        Verdict[] out = new Verdict[keys.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = checkThenAdd(keys.get(i), owners == null ? NO_OWNER : owners[i]);
        }
        return out;
    }

    /**
     * {@link #forget(byte[], long)} for each key with the owner at the same index, in order.
     *
     * @param owners one owner per key, or {@code null} to erase whoever owns them
     */
    default boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        noNullKey(keys);
        boolean[] out = new boolean[keys.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = forget(keys.get(i), owners == null ? NO_OWNER : owners[i]);
        }
        return out;
    }

    // ---- string conveniences (UTF-8): one for every single-key call above ----

    /** {@link #check(byte[])} on the UTF-8 bytes of the key. */
    default boolean check(String key) {
        return check(utf8(key));
    }

    /** {@link #add(byte[])} on the UTF-8 bytes of the key. */
    default void add(String key) {
        add(utf8(key), NO_OWNER);
    }

    /** {@link #add(byte[], long)} on the UTF-8 bytes of the key. */
    default void add(String key, long owner) {
        add(utf8(key), owner);
    }

    /** {@link #checkThenAdd(byte[])} on the UTF-8 bytes of the key. */
    default Verdict checkThenAdd(String key) {
        return checkThenAdd(utf8(key), NO_OWNER);
    }

    /** {@link #checkThenAdd(byte[], long)} on the UTF-8 bytes of the key. */
    default Verdict checkThenAdd(String key, long owner) {
        return checkThenAdd(utf8(key), owner);
    }

    /** {@link #forget(byte[], long)} on the UTF-8 bytes of the key. */
    default boolean forget(String key, long owner) {
        return forget(utf8(key), owner);
    }

    /** {@link #forget(byte[])} on the UTF-8 bytes of the key. */
    default boolean forget(String key) {
        return forget(utf8(key), NO_OWNER);
    }

    /** Releases memory or files the store holds. The store must not be used afterwards. */
    @Override
    default void close() {}

    /**
     * Refuses a null list or a null key in it before a batch changes anything, so that a refused batch has not half
     * happened. (Which non-null keys a store takes is its own rule: a filter migrated from Guava takes the empty one.)
     */
    private static void noNullKey(List<byte[]> keys) {
        for (byte[] key : Require.nonNull("keys", keys)) {
            Require.nonNull("key", key);
        }
    }

    private static byte[] utf8(String key) {
        return Require.nonNull("key", key).getBytes(StandardCharsets.UTF_8);
    }
}
