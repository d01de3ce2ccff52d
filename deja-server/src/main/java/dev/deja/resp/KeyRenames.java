package dev.deja.resp;

import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import io.netty.handler.codec.redis.RedisMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Redis's {@code RENAME} and {@code RENAMENX} over the one keyspace ({@link KeyspaceCommands}): a filter or another
 * namespace is renamed with its files, its expiry kept ({@link NamespaceRegistry#rename}); a key-value key is written
 * again under the new name with its value and expiry. As in Redis, {@code RENAME} replaces what the new name held,
 * of either type, and {@code RENAMENX} changes nothing then.
 */
final class KeyRenames {

    private final NamespaceRegistry namespaces;
    private final String kvNamespace;
    private final KvCommands kv;
    private final KeyAccess access;

    KeyRenames(NamespaceRegistry namespaces, String kvNamespace, KvCommands kv, KeyAccess access) {
        this.namespaces = namespaces;
        this.kvNamespace = kvNamespace;
        this.kv = kv;
        this.access = access;
    }

    /** Adds these commands to the table; slow: a namespace's rename closes its store and opens it again. */
    void register(CommandTable commands) {
        commands.add(RespCommand.write("RENAME", 3, RespCommand.slow((s, a) -> rename(a, /* replace= */ true))));
        commands.add(RespCommand.write("RENAMENX", 3, RespCommand.slow((s, a) -> rename(a, /* replace= */ false))));
    }

    private RedisMessage rename(RespArgs args, boolean replace) {
        byte[] from = access.key(args.bytes(1));
        byte[] to = access.key(args.bytes(2));
        Optional<Namespace> source = access.namespaceKey(from);
        boolean renamed;
        if (source.isPresent()) {
            renamed = renameNamespace(source.get().name(), to, replace);
        } else if (kv.held(List.of(from))[0]) {
            renamed = renameValue(from, to, replace);
        } else {
            throw new RespError("ERR no such key");
        }
        return replace ? Replies.OK : Replies.integer(renamed ? 1 : 0);
    }

    private boolean renameNamespace(String from, byte[] to, boolean replace) {
        String name = new String(to, StandardCharsets.UTF_8);
        if (!Namespace.isName(name) || name.equals(kvNamespace)) {
            throw new RespError("ERR a namespace cannot be named '" + name + "': "
                    + (name.equals(kvNamespace)
                            ? "it is the key-value namespace's name"
                            : "a name is 1 to 128 of A-Z a-z 0-9 _ . : - and does not start with . : or -"));
        }
        if (kv.held(List.of(to))[0]) {
            if (!replace) {
                return false;
            }
            kv.delete(List.of(to)).join();
        }
        try {
            return namespaces.rename(from, name, replace);
        } catch (IllegalArgumentException e) {
            throw new RespError("ERR " + e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean renameValue(byte[] from, byte[] to, boolean replace) {
        Optional<Namespace> target = access.namespaceKey(to);
        if (target.isPresent()) {
            if (!replace) {
                return false;
            }
            namespaces.delete(target.get().name());
        }
        long renamed = kv.rename(from, to, replace).join();
        if (renamed < 0) {
            throw new RespError("ERR no such key"); // deleted since it was found
        }
        return renamed > 0;
    }
}
