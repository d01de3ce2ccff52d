package dev.deja.resp;

import dev.deja.exact.ExactStore;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Redis's key-value commands on an exact namespace ({@code --kv-namespace}, default {@code kv}, created on first
 * write), so code written for the Redis dedup idiom, {@code SET id value NX EX seconds}, works unchanged: SET (NX,
 * XX, EX, PX, EXAT, PXAT, KEEPTTL), SETNX, SETEX, PSETEX, GET, EXISTS, DEL, UNLINK, TTL and PTTL.
 *
 * <p>A key that names a filter or another namespace ({@link KeyspaceCommands}: one keyspace) is refused with
 * Redis's {@code WRONGTYPE}, by {@code SET} too: deja never drops a filter for a value; {@code DEL} it first.
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
        // EXISTS, DEL, UNLINK, TTL, PTTL, EXPIRE and kin are KeyspaceCommands': they see filters too
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
        access.refuseNamespaceKey(key);
        byte[] value = args.bytes(2);
        // checked whole before the namespace is looked up: the first write creates it, and a refused SET is none
        SetOptions options = setOptions(args);
        Namespace kv = writable();
        long expiresAt = options.expiresAt(kv.exactStore());
        // the null's type is the protocol's as this command runs: a HELLO pipelined after it may switch the
        // session before the write completes
        RedisMessage notSet = Replies.nil(session);
        if (options.ifAbsent()) {
            return Gathering.current().setIfAbsent(kv, key, value, expiresAt, Replies.OK, notSet);
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
        access.refuseNamespaceKey(key);
        byte[] value = args.bytes(2);
        return Gathering.current().setIfAbsent(writable(), key, value, 0, Replies.integer(1), Replies.integer(0));
    }

    /** SETEX and PSETEX: SET with EX or PX, arguments in the order key, amount, value. */
    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object setEx(RespArgs args, long unitMillis) {
        byte[] key = access.key(args.bytes(1));
        access.refuseNamespaceKey(key);
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
        access.refuseNamespaceKey(key);
        ExactStore store = readable();
        if (store == null) {
            return Replies.nil(session);
        }
        return store.get(key).map(entry -> Replies.bulk(entry.value())).orElseGet(() -> Replies.nil(session));
    }

    /** Which of the keys the key-value namespace holds; none while it does not exist. */
    boolean[] held(List<byte[]> keys) {
        ExactStore store = readable();
        return store == null ? new boolean[keys.size()] : store.checkAll(keys);
    }

    /** Deletes the keys; the reply (or its future) is how many were held. */
    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    CompletableFuture<Long> delete(List<byte[]> keys) {
        if (keys.isEmpty() || readable() == null) {
            return CompletableFuture.completedFuture(0L);
        }
        return writable().writeExact(store -> {
            long erased = 0;
            for (boolean e : store.forgetAll(keys, null)) {
                erased += e ? 1 : 0;
            }
            return erased;
        });
    }

    /** Milliseconds the key has left: -2 when it is not held (Redis's TTL convention). */
    long remainingMillis(byte[] key) {
        ExactStore store = readable();
        return store == null ? -2 : store.remainingMillis(key);
    }

    /**
     * Gives a held key a new expiry ({@code 0}: none of its own, so the namespace's window) by writing its value
     * again, or deletes it when the time has passed; answers 1 when the key was held, else 0.
     */
    CompletableFuture<Long> expire(byte[] key, long atMillis) {
        if (readable() == null) {
            return CompletableFuture.completedFuture(0L);
        }
        return writable().writeExact(store -> {
            Optional<ExactStore.Entry> entry = store.get(key);
            if (entry.isEmpty()) {
                return 0L;
            }
            if (atMillis != 0 && atMillis <= System.currentTimeMillis()) {
                store.forgetAll(List.of(key), null);
                return 1L;
            }
            return store.putIfPresent(key, entry.get().value(), atMillis, /* keepExpiry= */ false) ? 1L : 0L;
        });
    }

    /**
     * Writes the key's value and own expiry under a new key and deletes it, in one store call: 1 when renamed, 0
     * when the new key is held and {@code replace} is false, -1 when the key is not held.
     */
    CompletableFuture<Long> rename(byte[] from, byte[] to, boolean replace) {
        if (readable() == null) {
            return CompletableFuture.completedFuture(-1L);
        }
        return writable().writeExact(store -> {
            Optional<ExactStore.Entry> entry = store.get(from);
            if (entry.isEmpty()) {
                return -1L;
            }
            if (Arrays.equals(from, to)) {
                return 1L;
            }
            if (!replace && store.get(to).isPresent()) {
                return 0L;
            }
            store.put(to, entry.get().value(), entry.get().expiresAtMillis(), /* keepExpiry= */ false);
            store.forgetAll(List.of(from), null);
            return 1L;
        });
    }

    /** The key's own expiry (epoch ms), or 0 when it has none or is not held. */
    long expiresAt(byte[] key) {
        ExactStore store = readable();
        return store == null
                ? 0
                : store.get(key).map(ExactStore.Entry::expiresAtMillis).orElse(0L);
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
