package dev.deja.redis;

import dev.deja.redis.BucketBatch.Group;
import dev.deja.redis.BucketBatch.Part;
import dev.deja.redis.node.Script;
import dev.deja.seen.Verdict;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The three bucket operations of a batch, each one script call per bucket group and instance (at most
 * {@link BucketBatch#MAX_KEYS_PER_CALL} keys a call), all sent before the first reply is awaited. Buckets that live
 * in the other shard configuration than the written one (a call without a timestamp over the cut-over) are read first,
 * in a call of their own.
 */
final class BucketOps {

    private static final Script CHECK_THEN_ADD =
            Script.load(BucketOps.class, "check-then-add.lua", ScriptOutputType.MULTI);
    private static final Script CHECK = Script.load(BucketOps.class, "check.lua", ScriptOutputType.MULTI);
    private static final Script FORGET = Script.load(BucketOps.class, "forget.lua", ScriptOutputType.MULTI);

    /** Every script, for loading them once at start. */
    static final List<Script> SCRIPTS = List.of(CHECK_THEN_ADD, CHECK, FORGET);

    private final BucketLayout layout;
    private final Duration timeout;
    private final WholeBuckets whole;

    BucketOps(BucketLayout layout, Duration timeout) {
        this.layout = layout;
        this.timeout = timeout;
        this.whole = new WholeBuckets(layout);
    }

    /** Records every key and answers each; see {@link BatchFailedException} for a batch that fails part way. */
    Verdict[] checkThenAdd(BucketBatch batch, long nowMillis) {
        Verdict[] out = new Verdict[batch.size()];
        Calls calls = new Calls();
        forEachChunk(
                batch,
                /* firstPart= */ 1,
                (part, chunk) -> calls.send(
                        part.node(),
                        () -> CHECK.run(part.node(), part.buckets(), args(batch, chunk, null, /* withOwners= */ false)),
                        reply -> heldElsewhere(batch, chunk, (List<?>) reply, out),
                        () -> {}));
        awaitAnswers(calls, out);
        List<Group> existing = new ArrayList<>();
        for (Group g : batch.groups) {
            if (whole.qualifies(g)) {
                whole.send(calls, batch, g, nowMillis, out, existing::add);
            } else {
                sendCheckThenAdd(calls, batch, g, nowMillis, out);
            }
        }
        awaitAnswers(calls, out);
        for (Group g : existing) {
            sendCheckThenAdd(calls, batch, g, nowMillis, out);
        }
        awaitAnswers(calls, out);
        return out;
    }

    /** One script call per chunk of the group's keys still unanswered. */
    private void sendCheckThenAdd(Calls calls, BucketBatch batch, Group g, long nowMillis, Verdict[] out) {
        Part part = g.parts().get(0);
        byte[] expireAt = ascii(layout.expireAt(g.bucket(), nowMillis));
        for (int[] chunk : BucketBatch.chunks(g.keys())) {
            int[] open = unanswered(chunk, out);
            if (open.length == 0) {
                continue;
            }
            calls.send(
                    part.node(),
                    () -> CHECK_THEN_ADD.run(
                            part.node(), part.buckets(), args(batch, open, expireAt, /* withOwners= */ true)),
                    reply -> {
                        whole.remember(g.bucket(), g.slice());
                        answered(open, (List<?>) reply, out);
                    },
                    () -> {});
        }
    }

    /** Whether each key is held in any bucket it may be in. */
    boolean[] check(BucketBatch batch) {
        boolean[] out = new boolean[batch.size()];
        Calls calls = new Calls();
        forEachChunk(
                batch,
                /* firstPart= */ 0,
                (part, chunk) -> calls.send(
                        part.node(),
                        () -> CHECK.run(part.node(), part.buckets(), args(batch, chunk, null, /* withOwners= */ false)),
                        reply -> {
                            List<?> held = (List<?>) reply;
                            for (int j = 0; j < chunk.length; j++) {
                                out[chunk[j]] |= held.get(j) != null;
                            }
                        },
                        () -> {}));
        if (!calls.await(timeout)) {
            throw calls.failure("check of " + out.length + " keys");
        }
        return out;
    }

    /** Erases each key held under its owner (or any, for no owner); says which were erased. */
    boolean[] forget(BucketBatch batch) {
        boolean[] out = new boolean[batch.size()];
        Calls calls = new Calls();
        forEachChunk(
                batch,
                /* firstPart= */ 0,
                (part, chunk) -> calls.send(
                        part.node(),
                        () -> FORGET.run(part.node(), part.buckets(), args(batch, chunk, null, /* withOwners= */ true)),
                        reply -> {
                            for (Object index : (List<?>) reply) {
                                out[chunk[((Long) index).intValue()]] = true;
                            }
                        },
                        () -> {}));
        if (!calls.await(timeout)) {
            throw calls.failure("forget of " + out.length + " keys (some may be erased)");
        }
        return out;
    }

    /**
     * Runs {@code each} for every chunk of every group's keys, once per part of the group from {@code firstPart} on
     * (part 0 is the instance holding the bucket written; later parts, the other instances to ask).
     */
    private static void forEachChunk(BucketBatch batch, int firstPart, BiConsumer<Part, int[]> each) {
        for (Group g : batch.groups) {
            List<Part> parts = g.parts();
            for (Part part : parts.subList(Math.min(firstPart, parts.size()), parts.size())) {
                for (int[] chunk : BucketBatch.chunks(g.keys())) {
                    each.accept(part, chunk);
                }
            }
        }
    }

    /** The keys of a chunk not answered yet (all of them, unless an earlier call found some elsewhere). */
    private static int[] unanswered(int[] chunk, Verdict[] out) {
        int open = 0;
        for (int i : chunk) {
            open += out[i] == null ? 1 : 0;
        }
        if (open == chunk.length) {
            return chunk;
        }
        int[] keys = new int[open];
        int k = 0;
        for (int i : chunk) {
            if (out[i] == null) {
                keys[k++] = i;
            }
        }
        return keys;
    }

    private static void heldElsewhere(BucketBatch batch, int[] chunk, List<?> held, Verdict[] out) {
        for (int j = 0; j < chunk.length; j++) {
            byte[] owner = (byte[]) held.get(j);
            int i = chunk[j];
            if (owner != null && out[i] == null) {
                boolean same = batch.owner(i) != 0 && Arrays.equals(owner, batch.ownerBytes(i));
                out[i] = same ? Verdict.RETRY : Verdict.DUPLICATE;
            }
        }
    }

    private static void answered(int[] keys, List<?> codes, Verdict[] out) {
        for (int i : keys) {
            out[i] = Verdict.NEW;
        }
        for (Object code : codes) {
            long c = (Long) code;
            out[keys[(int) (c >> 1)]] = (c & 1) == 1 ? Verdict.RETRY : Verdict.DUPLICATE;
        }
    }

    /** Waits for the calls sent; if one failed or did not end in time, fails the batch with what was answered. */
    private void awaitAnswers(Calls calls, Verdict[] out) {
        if (!calls.await(timeout)) {
            throw failed(out, calls);
        }
    }

    private static BatchFailedException failed(Verdict[] out, Calls calls) {
        int unanswered = (int) Arrays.stream(out).filter(v -> v == null).count();
        return new BatchFailedException(
                out, calls.failedInstances(), unanswered, calls.describe(), calls.firstFailure());
    }

    /**
     * A script's arguments: {@code first} if given, then the keys' ids, then (if {@code withOwners}) their owners in
     * the same order.
     */
    private static byte[][] args(BucketBatch batch, int[] keys, byte[] first, boolean withOwners) {
        int n = keys.length;
        int at = first == null ? 0 : 1;
        byte[][] out = new byte[at + (withOwners ? 2 * n : n)][];
        if (first != null) {
            out[0] = first;
        }
        for (int j = 0; j < n; j++) {
            int i = keys[j];
            out[at + j] = batch.id(i);
            if (withOwners) {
                out[at + n + j] = batch.ownerBytes(i);
            }
        }
        return out;
    }

    private static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }
}
