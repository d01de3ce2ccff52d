package dev.deja.resp;

import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.seen.SeenSet;
import dev.deja.server.ServerContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** How RESP commands reach namespaces and validate keys, with the server's auto-create rule and key limit. */
final class KeyAccess {

    private final NamespaceRegistry namespaces;
    private final int maxKeyBytes;
    private final int maxBatch;

    KeyAccess(ServerContext context) {
        this.namespaces = context.namespaces();
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
