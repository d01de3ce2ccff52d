package dev.deja.resp;

import dev.deja.namespace.NamespaceRegistry;
import dev.deja.namespace.ResetFrom;
import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * deja's own {@code DJ.*} commands, for every kind of namespace: create, drop, clear, list, info, snapshot and
 * merge; check, add, checkThenAdd (NEW / DUPLICATE / RETRY) and forget with an optional owner, and their batch
 * forms. Documented in docs/PROTOCOL.md.
 */
final class DejaCommands {

    private static final String WITH_OWNERS = "WITHOWNERS";

    private final ServerContext context;
    private final NamespaceRegistry namespaces;
    private final KeyAccess access;

    DejaCommands(ServerContext context) {
        this.context = context;
        this.namespaces = context.namespaces();
        this.access = new KeyAccess(context);
    }

    /** Adds these commands to the table. */
    void register(CommandTable commands) {
        commands.add(RespCommand.write("DJ.CREATE", -3, RespCommand.slow(this::create)));
        commands.add(RespCommand.write("DJ.DROP", 2, RespCommand.slow((s, a) -> {
            namespaces.delete(a.string(1));
            return Replies.OK;
        })));
        commands.add(RespCommand.write("DJ.CLEAR", 2, RespCommand.slow((s, a) -> {
            namespaces.clear(a.string(1));
            context.snapshotInBackground(a.string(1));
            return Replies.OK;
        })));
        commands.add(RespCommand.read(
                "DJ.LIST",
                1,
                (s, a) -> Replies.array(namespaces.list().stream()
                        .map(n -> Replies.bulk(n.name()))
                        .toList())));
        commands.add(RespCommand.read(
                "DJ.INFO",
                2,
                (s, a) -> Replies.fields(s, namespaces.get(a.string(1)).info().fields())));
        commands.add(RespCommand.read("DJ.SNAPSHOT", -1, this::snapshot));
        commands.add(RespCommand.write("DJ.RESET", 3, RespCommand.slow(this::reset)));
        commands.add(RespCommand.write("DJ.MERGE", 3, RespCommand.slow(this::merge)));
        commands.add(RespCommand.read("DJ.CHECK", 3, (s, a) -> {
            byte[] key = access.key(a.bytes(2));
            SeenSet store = access.forReading(a.string(1));
            return Replies.integer(store != null && store.check(key) ? 1 : 0);
        }));
        commands.add(RespCommand.write("DJ.ADD", -3, this::add));
        commands.add(RespCommand.write("DJ.CHECKTHENADD", -3, this::checkThenAdd));
        commands.add(RespCommand.write("DJ.FORGET", -3, this::forget));
        commands.add(RespCommand.read("DJ.KEYINFO", 3, this::keyInfo));
        commands.add(RespCommand.read("DJ.MCHECK", -3, this::mcheck));
        commands.add(RespCommand.write("DJ.MADD", -3, this::madd));
        commands.add(RespCommand.write("DJ.MCHECKTHENADD", -3, this::mcheckThenAdd));
        commands.add(RespCommand.write("DJ.MFORGET", -3, this::mforget));
    }

    private RedisMessage create(RespSession session, RespArgs args) {
        if (args.size() % 2 != 1) {
            throw new RespError("ERR parameters must come in name value pairs");
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        for (int i = 3; i < args.size(); i += 2) {
            // refused, as the HTTP API refuses it: taking the last would let a typo choose the store's size
            if (parameters.putIfAbsent(args.string(i), args.string(i + 1)) != null) {
                throw new RespError("ERR parameter '" + args.string(i) + "' is given twice");
            }
        }
        namespaces.create(args.string(1), args.string(2), parameters);
        return Replies.OK;
    }

    private RedisMessage snapshot(RespSession session, RespArgs args) {
        if (args.size() > 2) {
            throw RespError.arity("dj.snapshot");
        }
        String name = args.size() == 2 ? namespaces.get(args.string(1)).name() : null;
        context.snapshotInBackground(name);
        return Replies.simple("Background saving started");
    }

    /** {@code DJ.RESET ns READABLE|EMPTY}: brings a namespace that could not be opened back into service. */
    private RedisMessage reset(RespSession session, RespArgs args) {
        ResetFrom from;
        try {
            from = ResetFrom.valueOf(args.string(2).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new RespError("ERR DJ.RESET takes READABLE or EMPTY, not '" + args.string(2) + "'");
        }
        try {
            namespaces.reset(args.string(1), from);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reset namespace '" + args.string(1) + "': " + e.getMessage(), e);
        }
        return Replies.OK;
    }

    private RedisMessage merge(RespSession session, RespArgs args) {
        context.merge(namespaces.get(args.string(1)), namespaces.get(args.string(2)));
        return Replies.OK;
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object add(RespSession session, RespArgs args) {
        return single(args).thenApply(v -> Replies.OK);
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object checkThenAdd(RespSession session, RespArgs args) {
        return single(args).thenApply(verdicts -> verdict(verdicts[0]));
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object forget(RespSession session, RespArgs args) {
        long[] owners = owners(args);
        return access.forget(args.string(1), List.of(access.key(args.bytes(2))), owners)
                .thenApply(erased -> Replies.integer(erased[0] ? 1 : 0));
    }

    /** What an exact namespace holds about one key: owner, first-seen time and duplicate count; nil if not held. */
    private RedisMessage keyInfo(RespSession session, RespArgs args) {
        byte[] key = access.key(args.bytes(2));
        return namespaces
                .get(args.string(1))
                .exactStore()
                .info(key)
                .map(info -> {
                    Map<String, Object> fields = new LinkedHashMap<>();
                    fields.put("owner", info.owner());
                    fields.put("firstSeen", info.firstSeen().toString());
                    fields.put("duplicates", info.duplicates());
                    return Replies.fields(session, fields);
                })
                .orElseGet(() -> Replies.nil(session));
    }

    private RedisMessage mcheck(RespSession session, RespArgs args) {
        List<byte[]> keys = access.keys(args.from(2));
        SeenSet store = access.forReading(args.string(1));
        boolean[] held = store == null ? new boolean[keys.size()] : store.checkAll(keys);
        return integers(held);
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object madd(RespSession session, RespArgs args) {
        Batch batch = batch(args);
        return access.forWriting(args.string(1))
                .checkThenAdd(batch.keys(), batch.owners())
                .thenApply(verdicts -> Replies.integer(verdicts.length));
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object mcheckThenAdd(RespSession session, RespArgs args) {
        Batch batch = batch(args);
        return access.forWriting(args.string(1))
                .checkThenAdd(batch.keys(), batch.owners())
                .thenApply(verdicts -> {
                    List<RedisMessage> replies = new ArrayList<>(verdicts.length);
                    for (Verdict verdict : verdicts) {
                        replies.add(verdict(verdict));
                    }
                    return Replies.array(replies);
                });
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object mforget(RespSession session, RespArgs args) {
        Batch batch = batch(args);
        return access.forget(args.string(1), batch.keys(), batch.owners()).thenApply(DejaCommands::integers);
    }

    /** {@code DJ.ADD} and {@code DJ.CHECKTHENADD}: one key with an optional owner. */
    private CompletableFuture<Verdict[]> single(RespArgs args) {
        long[] owners = owners(args);
        // the key is checked before the namespace is looked up, which creates it: a refused write creates nothing
        List<byte[]> key = List.of(access.key(args.bytes(2)));
        return access.forWriting(args.string(1)).checkThenAdd(key, owners);
    }

    /** Keys, or with {@code WITHOWNERS} first, key-owner pairs; all checked before any is used. */
    private Batch batch(RespArgs args) {
        if (!args.upper(2).equals(WITH_OWNERS)) {
            return new Batch(access.keys(args.from(2)), null);
        }
        List<byte[]> pairs = args.from(3);
        if (pairs.isEmpty() || pairs.size() % 2 != 0) {
            throw new RespError("ERR WITHOWNERS needs key owner pairs");
        }
        access.batchSize(pairs.size() / 2);
        List<byte[]> keys = new ArrayList<>(pairs.size() / 2);
        long[] owners = new long[pairs.size() / 2];
        for (int i = 0; i < owners.length; i++) {
            keys.add(access.key(pairs.get(2 * i)));
            owners[i] = args.integer(3 + 2 * i + 1);
        }
        return new Batch(keys, owners);
    }

    @SuppressWarnings("ArrayRecordComponent") // never compared: a batch is parsed, run once and dropped
    private record Batch(List<byte[]> keys, long[] owners) {}

    /** The optional owner after {@code ns key}, as a one-element owners array, or null for none. */
    private static long[] owners(RespArgs args) {
        if (args.size() == 3) {
            return null;
        }
        if (args.size() != 4) {
            throw RespError.arity(args.string(0));
        }
        return new long[] {args.integer(3)};
    }

    private static RedisMessage verdict(Verdict verdict) {
        return Replies.simple(verdict.name());
    }

    private static RedisMessage integers(boolean[] values) {
        List<RedisMessage> replies = new ArrayList<>(values.length);
        for (boolean value : values) {
            replies.add(Replies.integer(value ? 1 : 0));
        }
        return Replies.array(replies);
    }
}
