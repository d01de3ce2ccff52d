package dev.deja.resp;

import dev.deja.exact.ExactStore;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.List;
import java.util.Locale;

/**
 * Redis's key-value commands on an exact namespace ({@code --kv-namespace}, default {@code kv}, created on first
 * write), so code written for the Redis dedup idiom, {@code SET id value NX EX seconds}, works unchanged: SET (NX,
 * XX, EX, PX, EXAT, PXAT, KEEPTTL), SETNX, SETEX, PSETEX, GET, EXISTS, DEL, UNLINK, TTL and PTTL.
 *
 * <p>Expiry is per key, as in Redis, but a key cannot outlive the namespace's window: a longer expiry is refused
 * with the window in the message. A key set without an expiry is held for the window (TTL reports the time left
 * of it). Writes are answered once durable per {@code --fsync}; the {@code SET ... NX} commands an event loop
 * executes in one turn run as one store call ({@link Gathering}, {@link KvBatch}).
 */
final class KvCommands {

    private final NamespaceRegistry namespaces;
    private final ServerConfig config;
    private final KeyAccess access;

    KvCommands(ServerContext context) {
        this.namespaces = context.namespaces();
        this.config = context.config();
        this.access = new KeyAccess(context);
    }

    /** Adds these commands to the table. */
    void register(CommandTable commands) {
        commands.add(RespCommand.write("SET", -3, this::set));
        commands.add(RespCommand.write("SETNX", 3, this::setNx));
        commands.add(RespCommand.write("SETEX", 4, (s, a) -> setEx(a, 1000)));
        commands.add(RespCommand.write("PSETEX", 4, (s, a) -> setEx(a, 1)));
        commands.add(RespCommand.read("GET", 2, this::get));
        commands.add(RespCommand.read("EXISTS", -2, (s, a) -> exists(a)));
        commands.add(RespCommand.write("DEL", -2, (s, a) -> delete(a)));
        commands.add(RespCommand.write("UNLINK", -2, (s, a) -> delete(a)));
        commands.add(RespCommand.read("TTL", 2, (s, a) -> ttl(a, 1000)));
        commands.add(RespCommand.read("PTTL", 2, (s, a) -> ttl(a, 1)));
    }

    /** What SET's options ask for: the expiry option (null for none) and its amount, checked positive. */
    private record SetOptions(boolean ifAbsent, boolean ifPresent, String expiry, long amount, boolean keepExpiry) {

        /** The epoch millisecond the key expires at, 0 for no expiry of its own. */
        long expiresAt(ExactStore store) {
            return expiry == null ? 0 : KvCommands.expiresAt(store, expiry, amount, "set");
        }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object set(RespSession session, RespArgs args) {
        byte[] key = access.key(args.bytes(1));
        byte[] value = args.bytes(2);
        // checked whole before the namespace is looked up: the first write creates it, and a refused SET is none
        SetOptions options = setOptions(args);
        Namespace kv = writable();
        long expiresAt = options.expiresAt(kv.exactStore());
        // the null's type is the protocol's as this command runs: a HELLO pipelined after it may switch the
        // session before the write completes
        RedisMessage notSet = Replies.nil(session);
        if (options.ifAbsent()) {
            return Gathering.current()
                    .setIfAbsent(kv, key, value, expiresAt)
                    .thenApply(set -> set ? Replies.OK : notSet);
        }
        if (options.ifPresent()) {
            return kv.writeExact(store -> store.putIfPresent(key, value, expiresAt, options.keepExpiry()))
                    .thenApply(set -> set ? Replies.OK : notSet);
        }
        return kv.writeExact(store -> {
            store.put(key, value, expiresAt, options.keepExpiry());
            return Replies.OK;
        });
    }

    /**
     * SET's options, by Redis's rules: every option's syntax is checked before the expiry's value; an expiry option
     * may be repeated (the last one counts) but not mixed with another expiry option or KEEPTTL; NX and XX exclude
     * each other.
     */
    private static SetOptions setOptions(RespArgs args) {
        boolean nx = false;
        boolean xx = false;
        boolean keep = false;
        String expiry = null;
        int expiryValue = -1;
        for (int i = 3; i < args.size(); i++) {
            String option = args.upper(i);
            switch (option) {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "KEEPTTL" -> keep = true;
                case "EX", "PX", "EXAT", "PXAT" -> {
                    if ((expiry != null && !expiry.equals(option)) || i + 1 >= args.size()) {
                        throw RespError.syntax();
                    }
                    expiry = option;
                    expiryValue = ++i;
                }
                case "GET" -> throw new RespError("ERR SET with GET is not supported by deja; use GET, then SET");
                default -> throw RespError.syntax();
            }
            if ((nx && xx) || (keep && expiry != null)) {
                throw RespError.syntax();
            }
        }
        long amount = expiry == null ? 0 : positive(args.integer(expiryValue), "set");
        return new SetOptions(nx, xx, expiry, amount, keep);
    }

    /** An expiry's amount, or Redis's error for a non-positive one. */
    private static long positive(long amount, String command) {
        if (amount <= 0) {
            throw new RespError("ERR invalid expire time in '" + command + "' command");
        }
        return amount;
    }

    /** The epoch millisecond a positive expiry option names, or Redis's error for an overflowing one. */
    private static long expiresAt(ExactStore store, String option, long amount, String command) {
        try {
            long now = store.clock().millis();
            return switch (option) {
                case "EX" -> Math.addExact(now, Math.multiplyExact(amount, 1000L));
                case "PX" -> Math.addExact(now, amount);
                case "EXAT" -> Math.multiplyExact(amount, 1000L);
                default -> amount; // PXAT
            };
        } catch (ArithmeticException e) {
            throw new RespError("ERR invalid expire time in '" + command + "' command");
        }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object setNx(RespSession session, RespArgs args) {
        byte[] key = access.key(args.bytes(1));
        byte[] value = args.bytes(2);
        return Gathering.current()
                .setIfAbsent(writable(), key, value, 0)
                .thenApply(set -> Replies.integer(set ? 1 : 0));
    }

    /** SETEX and PSETEX: SET with EX or PX, arguments in the order key, amount, value. */
    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object setEx(RespArgs args, long unitMillis) {
        byte[] key = access.key(args.bytes(1));
        byte[] value = args.bytes(3);
        String command = args.command().toLowerCase(Locale.ROOT);
        long amount = positive(args.integer(2), command); // before the first write creates the namespace
        Namespace kv = writable();
        long expiresAt = expiresAt(kv.exactStore(), unitMillis == 1 ? "PX" : "EX", amount, command);
        return kv.writeExact(store -> {
            store.put(key, value, expiresAt, /* keepExpiry= */ false);
            return Replies.OK;
        });
    }

    private RedisMessage get(RespSession session, RespArgs args) {
        byte[] key = access.key(args.bytes(1));
        ExactStore store = readable();
        if (store == null) {
            return Replies.nil(session);
        }
        return store.get(key).map(entry -> Replies.bulk(entry.value())).orElseGet(() -> Replies.nil(session));
    }

    private RedisMessage exists(RespArgs args) {
        List<byte[]> keys = access.keys(args.from(1));
        ExactStore store = readable();
        if (store == null) {
            return Replies.integer(0);
        }
        int held = 0;
        for (boolean h : store.checkAll(keys)) {
            held += h ? 1 : 0;
        }
        return Replies.integer(held);
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object delete(RespArgs args) {
        List<byte[]> keys = access.keys(args.from(1));
        if (readable() == null) {
            return Replies.integer(0);
        }
        return writable().writeExact(store -> {
            int erased = 0;
            for (boolean e : store.forgetAll(keys, null)) {
                erased += e ? 1 : 0;
            }
            return Replies.integer(erased);
        });
    }

    private RedisMessage ttl(RespArgs args, long unitMillis) {
        byte[] key = access.key(args.bytes(1));
        ExactStore store = readable();
        long remaining = store == null ? -2 : store.remainingMillis(key);
        // Redis rounds TTL to the nearest second
        return Replies.integer(remaining < 0 || unitMillis == 1 ? remaining : (remaining + 500) / 1000);
    }

    /** The key-value namespace, created on first write from {@code --kv-params}. */
    private Namespace writable() {
        return withValues(namespaces.getOrCreate(config.kvNamespace(), config.kvSpec()));
    }

    /** The key-value namespace's store, or null while it does not exist (every key is then absent). */
    private ExactStore readable() {
        return namespaces
                .find(config.kvNamespace())
                .map(n -> withValues(n).exactStore())
                .orElse(null);
    }

    /** The namespace, if it is an exact one that keeps values; else the error saying what it is. */
    private static Namespace withValues(Namespace namespace) {
        namespace.exactStore(); // refuses a namespace of another kind, naming it
        if (!Boolean.parseBoolean(namespace.parameters().get("values"))) {
            throw new RespError("ERR namespace '" + namespace.name() + "' is an exact namespace without values;"
                    + " key-value commands need one created with values true");
        }
        return namespace;
    }
}
