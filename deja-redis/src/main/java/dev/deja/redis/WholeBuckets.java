package dev.deja.redis;

import dev.deja.redis.BucketBatch.Group;
import dev.deja.redis.BucketBatch.Part;
import dev.deja.redis.node.Node;
import dev.deja.seen.Verdict;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RestoreArgs;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Creates a bucket nobody has written yet with one {@code RESTORE} of the whole bucket ({@link BucketDump}) instead
 * of a script call: Redis then copies the bucket in as it is, where {@code HSET} would search the growing hash for each
 * id before adding it. {@code RESTORE} without {@code REPLACE} fails with {@code BUSYKEY} when the bucket exists, so it
 * records the ids only if no other call did, and the group then goes to the script like any other.
 *
 * <p>Only a group whose keys are looked for in their written bucket alone (keys with timestamps, no cut-over between
 * shard configurations) and that fits in one call qualifies. Buckets this client created, or found to exist, are
 * remembered for the window, so that a stream writing to one bucket in many batches pays for a refused
 * {@code RESTORE} at most once per bucket ({@link KnownBuckets}). A node that does not take the command (a Redis
 * older than 7.0, an ACL without {@code RESTORE}) gets scripts only from then on; any other error fails the call as a
 * script call's would.
 */
final class WholeBuckets {

    private final BucketLayout layout;
    private final KnownBuckets known;

    private final Set<Node> refusing = ConcurrentHashMap.newKeySet();

    WholeBuckets(BucketLayout layout) {
        this.layout = layout;
        this.known = new KnownBuckets(layout.lookback());
    }

    /** Whether the group's bucket may be created whole. */
    boolean qualifies(Group g) {
        List<Part> parts = g.parts();
        return parts.size() == 1
                && parts.get(0).buckets().length == 1
                && g.keys().length <= BucketBatch.MAX_KEYS_PER_CALL
                && !refusing.contains(parts.get(0).node())
                && !known.contains(g.bucket(), g.slice());
    }

    /**
     * Sends the group's bucket whole; once created, answers its keys in {@code out} (the first copy of each id
     * {@code NEW}, a later copy in the group a {@code RETRY} under the same owner and a {@code DUPLICATE} otherwise,
     * as the script does); if the bucket exists or the node refuses, hands the group to {@code refused}.
     */
    void send(Calls calls, BucketBatch batch, Group g, long nowMillis, Verdict[] out, Consumer<Group> refused) {
        int[] keys = g.keys();
        touch(batch, keys);
        int[] first = firstCopies(batch, keys);
        int[] unique = new int[keys.length];
        int count = 0;
        for (int j = 0; j < keys.length; j++) {
            if (first[j] == j) {
                unique[count++] = keys[j];
            }
        }
        byte[] payload = BucketDump.of(new BatchEntries(batch, unique, count));
        Part part = g.parts().get(0);
        Node node = part.node();
        RestoreArgs expiry =
                new RestoreArgs().ttl(layout.expireAt(g.bucket(), nowMillis)).absttl();
        calls.send(
                node,
                () -> created(
                        node,
                        node.commands()
                                .restore(part.buckets()[0], payload, expiry)
                                .toCompletableFuture()),
                reply -> {
                    known.add(g.bucket(), g.slice());
                    if ((Boolean) reply) {
                        answer(batch, keys, first, out);
                    } else {
                        refused.accept(g);
                    }
                },
                () -> {});
    }

    /**
     * Reads each key's id and owner once in a loop whose loads do not wait on each other: a group's keys lie
     * scattered over the batch, and the processor then has many of their cache misses in flight at once, where the
     * hashing and encoding after it would meet them one at a time.
     */
    private static long touch(BucketBatch batch, int[] keys) {
        long sum = 0;
        for (int i : keys) {
            sum += batch.idHash(i) + batch.owner(i);
        }
        return sum;
    }

    /**
     * Whether the {@code RESTORE} created the bucket; false if it exists, or if the node does not take such payloads
     * (the group then goes to the script). Any other error (out of memory, a read-only replica, a lost connection)
     * fails the call as it would fail a script call.
     */
    private CompletableFuture<Boolean> created(Node node, CompletableFuture<String> restore) {
        return restore.handle((ok, e) -> {
            if (e == null) {
                return true;
            }
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            String message = cause instanceof RedisCommandExecutionException ? String.valueOf(cause.getMessage()) : "";
            if (message.startsWith("BUSYKEY")) {
                return false;
            }
            if (refusesPayloads(message)) {
                refusing.add(node);
                return false;
            }
            throw new CompletionException(cause);
        });
    }

    /**
     * Whether an error says the server does not take this client's {@code RESTORE} at all: an ACL without it, a
     * renamed or missing command, or a payload it cannot read (a Redis older than 7.0).
     */
    static boolean refusesPayloads(String message) {
        return message.startsWith("NOPERM")
                || message.startsWith("ERR unknown command")
                || message.contains("DUMP payload")
                || message.contains("Bad data format");
    }

    /** Notes that a bucket exists, written by a script call or created whole. */
    void remember(long bucket, int slice) {
        known.add(bucket, slice);
    }

    private static void answer(BucketBatch batch, int[] keys, int[] first, Verdict[] out) {
        for (int j = 0; j < keys.length; j++) {
            int i = keys[j];
            if (first[j] == j) {
                out[i] = Verdict.NEW;
            } else {
                long owner = batch.owner(i);
                out[i] = owner != 0 && owner == batch.owner(keys[first[j]]) ? Verdict.RETRY : Verdict.DUPLICATE;
            }
        }
    }

    /** For each of the keys, the position of the first key with the same id: its own if it is the first. */
    static int[] firstCopies(BucketBatch batch, int[] keys) {
        int n = keys.length;
        int bits = 32 - Integer.numberOfLeadingZeros(Math.max(1, n)) + 1; // a table at most half full
        int size = 1 << bits;
        int[] slots = new int[size]; // position + 1; 0 for an empty slot
        int[] first = new int[n];
        for (int j = 0; j < n; j++) {
            int s = (batch.idHash(keys[j]) * 0x9E3779B9) >>> (32 - bits);
            while (true) {
                int p = slots[s];
                if (p == 0) {
                    slots[s] = j + 1;
                    first[j] = j;
                    break;
                }
                if (batch.sameId(keys[p - 1], keys[j])) {
                    first[j] = p - 1;
                    break;
                }
                s = (s + 1) & (size - 1);
            }
        }
        return first;
    }

    /** The first copies of a group's ids with their owners, as a bucket's entries. */
    @SuppressWarnings("ArrayRecordComponent") // indexes into the batch, never changed once made
    private record BatchEntries(BucketBatch batch, int[] keys, int count) implements BucketDump.Entries {

        @Override
        public int maxLength() {
            return 20;
        }

        @Override
        public int field(int j, byte[] into) {
            return batch.id(keys[j], into);
        }

        @Override
        public int value(int j, byte[] into) {
            return batch.ownerBytes(keys[j], into);
        }

        @Override
        public boolean fieldsAreLongs() {
            return batch.idsAreLongs();
        }

        @Override
        public long fieldValue(int j) {
            return batch.idValue(keys[j]);
        }
    }
}
