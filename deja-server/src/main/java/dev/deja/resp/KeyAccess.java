package dev.deja.resp;

import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.seen.SeenSet;
import dev.deja.server.ServerContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** How RESP commands reach namespaces and validate keys, with the server's auto-create rule and key limit. */
final class KeyAccess {

    private final NamespaceRegistry namespaces;
    private final String kvNamespace;
    private final int maxKeyBytes;
    private final int maxBatch;

    KeyAccess(ServerContext context) {
        this.namespaces = context.namespaces();
        this.kvNamespace = context.config().kvNamespace();
        this.maxKeyBytes = context.config().maxKeyBytes();
        this.maxBatch = context.config().maxBatch();
    }

    NamespaceRegistry namespaces() {
        return namespaces;
    }

    /** The namespace to write to, created on first use when auto-create is on. */
    Namespace forWriting(String name) {
        return namespaces.getOrCreate(name);
    }

    /**
     * The store to check keys in, or null when the namespace does not exist yet and auto-create is on: it holds no
     * key then; refused as unknown when auto-create is off.
     */
    SeenSet forReading(String name) {
        return namespaces.getOrEmpty(name).map(Namespace::store).orElse(null);
    }

    /** Forgets the keys; a namespace that does not exist yet holds none, and is not created for that. */
    CompletableFuture<boolean[]> forget(String name, List<byte[]> keys, long[] owners) {
        return namespaces
                .getOrEmpty(name)
                .map(namespace -> namespace.forget(keys, owners))
                .orElseGet(() -> CompletableFuture.completedFuture(new boolean[keys.size()]));
    }

    /**
     * The namespace's store, or null when it does not exist; a bad name is an error, not a namespace that does not
     * exist yet. Does not apply the auto-create rule: {@code BF.EXISTS} answers 0 for a filter that does not exist,
     * as RedisBloom does.
     */
    SeenSet ifExists(String name) {
        return namespaces.find(name).map(Namespace::store).orElse(null);
    }

    /**
     * The namespace a key of the one keyspace names ({@link KeyspaceCommands}), if it names one: not the key-value
     * namespace itself nor {@code default}, which are not keys, and never a key that cannot be a namespace's name.
     */
    Optional<Namespace> namespaceKey(byte[] key) {
        String name = new String(key, StandardCharsets.UTF_8);
        if (!Namespace.isName(name) || name.equals(kvNamespace) || name.equals(Namespace.DEFAULT)) {
            return Optional.empty();
        }
        return namespaces.find(name);
    }

    /** Refuses a key-value command on a key that names a namespace, with Redis's {@code WRONGTYPE}. */
    void refuseNamespaceKey(byte[] key) {
        String name = new String(key, StandardCharsets.UTF_8);
        // a map look-up, not the name's pattern: this runs for every key-value command
        if (namespaces.served(name) != null && !name.equals(kvNamespace) && !name.equals(Namespace.DEFAULT)) {
            throw new RespError(RespError.WRONGTYPE);
        }
    }

    /**
     * Whether the key-value namespace holds {@code name} as a key (a Redis string), so that a filter command on it is
     * refused with {@code WRONGTYPE}; false while that namespace does not exist or keeps no values.
     */
    boolean holdsValue(String name) {
        return namespaces
                .find(kvNamespace)
                .filter(n -> n.kind().name().equals("exact")
                        && Boolean.parseBoolean(n.parameters().get("values")))
                .map(n -> n.exactStore().check(name.getBytes(StandardCharsets.UTF_8)))
                .orElse(false);
    }

    /** The key, or an error naming the limit when it is empty or too large. */
    byte[] key(byte[] key) {
        if (key.length == 0) {
            throw new RespError("ERR key must be a non-empty string");
        }
        if (key.length > maxKeyBytes) {
            throw new RespError("ERR key must be at most " + maxKeyBytes + " bytes (got " + key.length + ")");
        }
        return key;
    }

    /** Every key checked before any is used, so a bad one changes nothing; at most {@code --max-batch} of them. */
    List<byte[]> keys(List<byte[]> keys) {
        batchSize(keys.size());
        keys.forEach(this::key);
        return keys;
    }

    /** Refuses a command holding more keys than {@code --max-batch}, as an HTTP batch is refused. */
    void batchSize(int keys) {
        if (keys > maxBatch) {
            throw new RespError("ERR a command may hold at most " + maxBatch + " keys (--max-batch; got " + keys + ")");
        }
    }
}
