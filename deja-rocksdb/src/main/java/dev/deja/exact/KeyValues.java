package dev.deja.exact;

import dev.deja.checks.Require;
import dev.deja.seen.SeenSet;
import java.util.List;
import java.util.Optional;

/**
 * The key-value operations of an {@link ExactStore} created with values: what Redis's de-duplication idiom
 * ({@code SET id value NX EX seconds}, {@code GET}, {@code PTTL}) needs, on top of the seen-set.
 *
 * <p>Every write goes into the newest generation, in one WriteBatch, under the key's lock ({@link KeyUpdates}); a
 * copy left in an older generation is shadowed, since lookups take the newest generation holding a key, and ages
 * out with its generation. Nothing is ever deleted key by key: a key whose
 * expiry has passed is simply not held. An overwrite replaces the value and expiry and keeps what the seen-set
 * knows about the key (first-seen time, owner, duplicate count); a key written while not held starts afresh.
 */
final class KeyValues {

    private final StoreEngine engine;
    private final long windowMillis;
    private final int maxValueBytes;

    /** The key-value view of the store; its window and value limit are those the store was opened with. */
    KeyValues(StoreEngine engine) {
        this.engine = engine;
        this.windowMillis = engine.options().windowMillis();
        this.maxValueBytes = engine.options().maxValueBytes();
    }

    boolean putIfAbsent(byte[] key, byte[] value, long expiresAtMillis) {
        return update(key, ifAbsent(value, expiresAtMillis));
    }

    /** The update of {@code SET key value NX}: checks its arguments now, and the expiry against the window later. */
    private KeyUpdates.Update ifAbsent(byte[] value, long expiresAtMillis) {
        byte[] data = checkValue(value);
        checkExpiryArgument(expiresAtMillis, false);
        return (held, now) -> {
            checkExpiryInWindow(expiresAtMillis, now);
            return held != null ? null : fresh(data, expiresAtMillis, now);
        };
    }

    boolean[] putIfAbsentAll(
            List<byte[]> keys, List<byte[]> values, long[] expiresAtMillis, RuntimeException[] refused) {
        int n = keys.size();
        if (values.size() != n || expiresAtMillis.length != n || refused.length != n) {
            throw new IllegalArgumentException("keys, values, expiresAtMillis and refused must have the same length"
                    + " (got " + n + ", " + values.size() + ", " + expiresAtMillis.length + ", " + refused.length
                    + ")");
        }
        KeyUpdates.Update[] updates = new KeyUpdates.Update[n];
        for (int i = 0; i < n; i++) {
            try {
                updates[i] = ifAbsent(values.get(i), expiresAtMillis[i]);
            } catch (RuntimeException e) {
                updates[i] = (held, now) -> {
                    throw e;
                };
            }
        }
        return engine.updateAll(keys, updates, refused);
    }

    boolean putIfPresent(byte[] key, byte[] value, long expiresAtMillis, boolean keepExpiry) {
        byte[] data = checkValue(value);
        checkExpiryArgument(expiresAtMillis, keepExpiry);
        return update(key, (held, now) -> {
            checkExpiryInWindow(expiresAtMillis, now);
            return held == null ? null : overwrite(held, data, expiresAtMillis, keepExpiry);
        });
    }

    void put(byte[] key, byte[] value, long expiresAtMillis, boolean keepExpiry) {
        byte[] data = checkValue(value);
        checkExpiryArgument(expiresAtMillis, keepExpiry);
        update(key, (held, now) -> {
            checkExpiryInWindow(expiresAtMillis, now);
            return held == null
                    ? fresh(data, expiresAtMillis, now)
                    : overwrite(held, data, expiresAtMillis, keepExpiry);
        });
    }

    /** The key's live value: held and not expired; empty otherwise. */
    Optional<StoredValue> get(byte[] key) {
        GenerationKeys.Hit hit = engine.held(key, engine.clock().millis());
        return hit == null ? Optional.empty() : Optional.of(hit.value());
    }

    long remainingMillis(byte[] key) {
        long now = engine.clock().millis();
        GenerationKeys.Hit hit = engine.held(key, now);
        if (hit == null) {
            return -2;
        }
        StoredValue v = hit.value();
        if (v.expiresAt() != 0) {
            return v.expiresAt() - now; // > 0: an expiry at or before now is not held
        }
        if (windowMillis == 0) {
            return -1;
        }
        // The copy was written no earlier than its generation was created, and is held for a window after that.
        long written = Math.max(v.firstSeen(), hit.generation().createdMillis);
        return Math.max(0, written + windowMillis - now);
    }

    long maxExpiresAtMillis() {
        return maxExpiresAt(engine.clock().millis());
    }

    /**
     * Reads one key and writes what {@code update} returns into the newest generation, atomically
     * ({@link StoreEngine#updateAll}).
     *
     * @return whether a value was written
     */
    private boolean update(byte[] key, KeyUpdates.Update update) {
        RuntimeException[] refused = new RuntimeException[1];
        boolean written = engine.updateAll(List.of(Require.key(key)), new KeyUpdates.Update[] {update}, refused)[0];
        if (refused[0] != null) {
            throw refused[0];
        }
        return written;
    }

    private long maxExpiresAt(long nowMillis) {
        return windowMillis == 0 ? Long.MAX_VALUE : nowMillis + windowMillis;
    }

    private static StoredValue fresh(byte[] data, long expiresAtMillis, long nowMillis) {
        return new StoredValue(SeenSet.NO_OWNER, nowMillis, 0, expiresAtMillis, data);
    }

    private static StoredValue overwrite(StoredValue held, byte[] data, long expiresAtMillis, boolean keepExpiry) {
        return new StoredValue(
                held.owner(),
                held.firstSeen(),
                held.duplicates(),
                keepExpiry ? held.expiresAt() : expiresAtMillis,
                data);
    }

    /** A private copy of the value, which must be at most the store's limit. */
    private byte[] checkValue(byte[] value) {
        Require.nonNull("value", value);
        if (value.length > maxValueBytes) {
            throw new IllegalArgumentException("value must be at most " + maxValueBytes + " bytes, the store's"
                    + " maxValueBytes (got " + value.length + " bytes)");
        }
        return value.clone();
    }

    private static void checkExpiryArgument(long expiresAtMillis, boolean keepExpiry) {
        if (expiresAtMillis < 0) {
            throw new IllegalArgumentException("expiresAtMillis must be an epoch millisecond >= 0, 0 for no expiry"
                    + " (got " + expiresAtMillis + ")");
        }
        if (keepExpiry && expiresAtMillis != 0) {
            throw new IllegalArgumentException("keepExpiry keeps the key's expiry, so expiresAtMillis must be 0"
                    + " (got " + expiresAtMillis + ")");
        }
    }

    private void checkExpiryInWindow(long expiresAtMillis, long nowMillis) {
        if (expiresAtMillis > maxExpiresAt(nowMillis)) {
            long away = expiresAtMillis - nowMillis;
            // Seconds when it is a second or more beyond the window, rounded: the expiry was computed from a clock
            // read a moment before this store's, so EX 172800 is 172,799,999 ms away here, and reads as the client
            // wrote it; milliseconds when it is closer, where rounding would hide the difference.
            String awayText = away - windowMillis >= 1000 ? Math.round(away / 1000.0) + " s" : away + " ms";
            throw new IllegalArgumentException("expiry is " + awayText + " away but the store's window is "
                    + duration(windowMillis) + "; create the namespace with a longer window");
        }
    }

    /** Whole seconds when exact, else milliseconds. */
    private static String duration(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }
}
