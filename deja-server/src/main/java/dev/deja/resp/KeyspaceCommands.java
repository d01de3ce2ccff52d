package dev.deja.resp;

import dev.deja.hash.Hash128;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Redis's keyspace commands over one keyspace, as in Redis: every namespace (a filter created by {@code BF.RESERVE},
 * {@code DJ.CREATE} or a first {@code BF.ADD}) is a key, and so is every key of the key-value namespace
 * ({@link KvCommands}): {@code DEL}/{@code UNLINK} drop a namespace with its files, {@code EXISTS} and {@code TYPE} see
 * it, {@code EXPIRE}/{@code PEXPIRE}/{@code EXPIREAT}/{@code PEXPIREAT}/{@code PERSIST} and {@code TTL}/{@code PTTL}
 * give the whole namespace an expiry that survives a restart, and {@code KEYS}/{@code SCAN} list the namespaces (the
 * key-value namespace's own keys cannot be listed: its store has no order to walk), {@code RENAME}/{@code RENAMENX}
 * rename either ({@link KeyRenames}). The key-value namespace itself and {@code default} are not keys of this
 * keyspace.
 */
final class KeyspaceCommands {

    private final NamespaceRegistry namespaces;
    private final String kvNamespace;
    private final KvCommands kv;
    private final KeyAccess access;
    private final boolean allowFlush;

    KeyspaceCommands(ServerContext context, KvCommands kv) {
        this.namespaces = context.namespaces();
        this.kvNamespace = context.config().kvNamespace();
        this.kv = kv;
        this.access = new KeyAccess(context);
        this.allowFlush = context.config().allowFlush();
    }

    /** Adds these commands to the table. */
    void register(CommandTable commands) {
        // slow: dropping a namespace closes its store and deletes its files
        commands.add(RespCommand.write("DEL", -2, RespCommand.slow((s, a) -> delete(a))));
        commands.add(RespCommand.write("UNLINK", -2, RespCommand.slow((s, a) -> delete(a))));
        commands.add(RespCommand.read("EXISTS", -2, (s, a) -> exists(a)));
        commands.add(RespCommand.read("TYPE", 2, (s, a) -> Replies.simple(type(a.bytes(1)))));
        commands.add(RespCommand.write("EXPIRE", -3, RespCommand.slow((s, a) -> expire(a, 1000, /* at= */ false))));
        commands.add(RespCommand.write("PEXPIRE", -3, RespCommand.slow((s, a) -> expire(a, 1, /* at= */ false))));
        commands.add(RespCommand.write("EXPIREAT", -3, RespCommand.slow((s, a) -> expire(a, 1000, /* at= */ true))));
        commands.add(RespCommand.write("PEXPIREAT", -3, RespCommand.slow((s, a) -> expire(a, 1, /* at= */ true))));
        commands.add(RespCommand.write("PERSIST", 2, RespCommand.slow((s, a) -> persist(a))));
        commands.add(RespCommand.read("TTL", 2, (s, a) -> ttl(a, 1000)));
        commands.add(RespCommand.read("PTTL", 2, (s, a) -> ttl(a, 1)));
        commands.add(RespCommand.read("KEYS", 2, (s, a) -> keys(a)));
        commands.add(RespCommand.write("FLUSHDB", -1, RespCommand.slow((s, a) -> flush(a))));
        commands.add(RespCommand.write("FLUSHALL", -1, RespCommand.slow((s, a) -> flush(a))));
        commands.add(RespCommand.read("SCAN", -2, (s, a) -> scan(a)));
        new KeyRenames(namespaces, kvNamespace, kv, access).register(commands);
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits
    private Object delete(RespArgs args) {
        List<byte[]> kvKeys = new ArrayList<>();
        long dropped = 0;
        for (byte[] key : access.keys(args.from(1))) { // the batch and key limits, checked before anything changes
            Optional<Namespace> namespace = access.namespaceKey(key);
            if (namespace.isPresent()) {
                namespaces.delete(namespace.get().name());
                dropped++;
            } else {
                kvKeys.add(key);
            }
        }
        long droppedNamespaces = dropped;
        return kv.delete(kvKeys).thenApply(erased -> Replies.integer(droppedNamespaces + erased));
    }

    private RedisMessage exists(RespArgs args) {
        List<byte[]> kvKeys = new ArrayList<>();
        long held = 0;
        for (byte[] key : access.keys(args.from(1))) {
            if (access.namespaceKey(key).isPresent()) {
                held++;
            } else {
                kvKeys.add(key);
            }
        }
        for (boolean h : kv.held(kvKeys)) {
            held += h ? 1 : 0;
        }
        return Replies.integer(held);
    }

    /** RedisBloom's type names for its filters; deja's own for its other kinds; {@code string} for a value. */
    private String type(byte[] key) {
        Optional<Namespace> namespace = access.namespaceKey(key);
        if (namespace.isPresent()) {
            return switch (namespace.get().kind().name()) {
                case "bloom" -> "MBbloom--";
                case "cuckoo" -> "MBbloomCF";
                default -> "deja-" + namespace.get().kind().name();
            };
        }
        return kv.held(List.of(access.key(key)))[0] ? "string" : "none";
    }

    /** {@code EXPIRE key amount [NX|XX|GT|LT]} and its kin; 1 when the expiry was set, 0 otherwise. */
    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits
    private Object expire(RespArgs args, long unitMillis, boolean at) {
        String command = args.string(0).toLowerCase(Locale.ROOT);
        long amount = args.integer(2);
        String condition = args.size() > 3 ? args.upper(3) : "";
        if (args.size() > 4 || !List.of("", "NX", "XX", "GT", "LT").contains(condition)) {
            throw new RespError("ERR Unsupported option " + args.string(args.size() - 1));
        }
        long atMillis;
        try {
            long millis = Math.multiplyExact(amount, unitMillis);
            atMillis = at ? millis : Math.addExact(System.currentTimeMillis(), millis);
        } catch (ArithmeticException e) {
            throw new RespError("ERR invalid expire time in '" + command + "' command");
        }
        atMillis = Math.max(1, atMillis); // a time at or before the epoch: already past
        byte[] key = args.bytes(1);
        Optional<Namespace> namespace = access.namespaceKey(key);
        long current = namespace.map(Namespace::expiresAtMillis).orElseGet(() -> kv.expiresAt(access.key(key)));
        if (!allowed(condition, current, atMillis)) {
            return Replies.integer(0);
        }
        if (namespace.isPresent()) {
            return Replies.integer(setExpiry(namespace.get().name(), atMillis) ? 1 : 0);
        }
        return kv.expire(access.key(key), atMillis).thenApply(Replies::integer);
    }

    /** Redis's NX/XX/GT/LT rules, where no expiry counts as an infinite one for GT and LT. */
    private static boolean allowed(String condition, long current, long atMillis) {
        boolean has = current != Namespace.NO_EXPIRY;
        return switch (condition) {
            case "NX" -> !has;
            case "XX" -> has;
            case "GT" -> has && atMillis > current;
            case "LT" -> !has || atMillis < current;
            default -> true;
        };
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits
    private Object persist(RespArgs args) {
        byte[] key = args.bytes(1);
        Optional<Namespace> namespace = access.namespaceKey(key);
        if (namespace.isPresent()) {
            boolean had = namespace.get().expiresAtMillis() != Namespace.NO_EXPIRY;
            return Replies.integer(had && setExpiry(namespace.get().name(), Namespace.NO_EXPIRY) ? 1 : 0);
        }
        byte[] kvKey = access.key(key);
        if (kv.expiresAt(kvKey) == 0) {
            return Replies.integer(0);
        }
        return kv.expire(kvKey, 0).thenApply(Replies::integer);
    }

    private boolean setExpiry(String name, long atMillis) {
        try {
            return namespaces.expire(name, atMillis);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot record the expiry of namespace '" + name + "': " + e.getMessage(), e);
        }
    }

    /** {@code TTL}/{@code PTTL}: -2 for a missing key, -1 for a namespace without an expiry. */
    private RedisMessage ttl(RespArgs args, long unitMillis) {
        Optional<Namespace> namespace = access.namespaceKey(args.bytes(1));
        long remaining;
        if (namespace.isPresent()) {
            long at = namespace.get().expiresAtMillis();
            remaining = at == Namespace.NO_EXPIRY ? -1 : Math.max(0, at - System.currentTimeMillis());
        } else {
            remaining = kv.remainingMillis(access.key(args.bytes(1)));
        }
        // Redis rounds TTL to the nearest second
        return Replies.integer(remaining < 0 || unitMillis == 1 ? remaining : (remaining + 500) / 1000);
    }

    /**
     * {@code FLUSHDB}/{@code FLUSHALL [ASYNC|SYNC]}: drops every namespace and its files (the key-value namespace too,
     * created again on the next write) and empties {@code default}, which always exists; refused unless the server
     * was started with {@code --allow-flush true}, since it loses every key.
     */
    private RedisMessage flush(RespArgs args) {
        String command = args.string(0).toUpperCase(Locale.ROOT);
        if (args.size() > 2 || (args.size() == 2 && !List.of("ASYNC", "SYNC").contains(args.upper(1)))) {
            throw new RespError("ERR syntax error");
        }
        if (!allowFlush) {
            throw new RespError("ERR " + command + " is disabled: it would drop every namespace and its files; start"
                    + " deja serve with --allow-flush true to allow it");
        }
        for (Namespace namespace : namespaces.list()) {
            if (namespace.name().equals(Namespace.DEFAULT)) {
                namespaces.clear(Namespace.DEFAULT);
            } else {
                namespaces.delete(namespace.name());
            }
        }
        return Replies.OK;
    }

    /** {@code KEYS pattern}: the namespaces whose names match. */
    private RedisMessage keys(RespArgs args) {
        PathMatcher pattern = ConnectionCommands.glob(args.string(1));
        return Replies.array(names().stream()
                .filter(n -> pattern != null && pattern.matches(Path.of(n)))
                .map(Replies::bulk)
                .toList());
    }

    /**
     * {@code SCAN cursor [MATCH pattern] [COUNT n] [TYPE type]} over the namespaces, in the order of their names'
     * 64-bit hashes: the cursor is the last hash returned, so a namespace that exists for the whole scan is returned
     * exactly once, whatever is created or dropped meanwhile, as Redis guarantees.
     */
    private RedisMessage scan(RespArgs args) {
        long cursor = Long.parseUnsignedLong(args.string(1));
        PathMatcher pattern = null;
        long count = 10;
        String type = null;
        for (int i = 2; i < args.size(); i += 2) {
            if (i + 1 >= args.size()) {
                throw new RespError("ERR syntax error");
            }
            switch (args.upper(i)) {
                case "MATCH" -> pattern = ConnectionCommands.glob(args.string(i + 1));
                case "COUNT" -> count = args.integer(i + 1);
                case "TYPE" -> type = args.string(i + 1);
                default -> throw new RespError("ERR syntax error");
            }
        }
        if (count < 1) {
            throw new RespError("ERR syntax error");
        }
        record Placed(long position, String name) {}
        List<Placed> after = new ArrayList<>();
        for (String name : names()) {
            long position = position(name);
            if (Long.compareUnsigned(position, cursor) > 0) {
                after.add(new Placed(position, name));
            }
        }
        after.sort((a, b) -> Long.compareUnsigned(a.position(), b.position()));
        List<Placed> page = after.subList(0, (int) Math.min(count, after.size()));
        long next = page.size() == after.size() ? 0 : page.getLast().position();
        List<RedisMessage> found = new ArrayList<>();
        for (Placed placed : page) {
            String name = placed.name();
            if ((pattern == null || pattern.matches(Path.of(name)))
                    && (type == null || type.equalsIgnoreCase(type(name.getBytes(StandardCharsets.UTF_8))))) {
                found.add(Replies.bulk(name));
            }
        }
        return Replies.array(List.of(Replies.bulk(Long.toUnsignedString(next)), Replies.array(found)));
    }

    /** A name's place in the scan order: its hash, never 0 (the cursor that starts and ends a scan). */
    private static long position(String name) {
        long hash = Hash128.of(name.getBytes(StandardCharsets.UTF_8)).high();
        return hash == 0 ? 1 : hash;
    }

    /** The names of this keyspace's namespaces. */
    private List<String> names() {
        return namespaces.list().stream()
                .map(Namespace::name)
                .filter(n -> !n.equals(kvNamespace) && !n.equals(Namespace.DEFAULT))
                .toList();
    }
}
