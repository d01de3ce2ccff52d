package dev.deja.resp;

import dev.deja.namespace.Namespace;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One RESP connection's state: protocol version, authentication, client name, and the writes gathered from the
 * batch of pipelined commands executing now. Used only on its event loop.
 */
final class RespSession {

    private static final AtomicLong IDS = new AtomicLong();

    final long id = IDS.incrementAndGet();
    int protocol = 2;
    boolean authenticated;
    boolean closing;
    String clientName;

    /** SET ... NX commands of the executing batch not run yet, or null. */
    private KvBatch pendingSets;

    RespSession(boolean passwordRequired) {
        this.authenticated = !passwordRequired;
    }

    /** Gathers a {@code SET key value NX} on {@code kv} into the batch run by {@link #runGatheredWrites()}. */
    CompletableFuture<Boolean> setIfAbsentLater(Namespace kv, byte[] key, byte[] value, long expiresAtMillis) {
        if (pendingSets != null && pendingSets.namespace() != kv) {
            runGatheredWrites(); // the namespace was replaced meanwhile
        }
        if (pendingSets == null) {
            pendingSets = new KvBatch(kv);
        }
        return pendingSets.add(key, value, expiresAtMillis);
    }

    /** Runs the gathered writes; called before any other command of the batch, and when the batch ends. */
    void runGatheredWrites() {
        KvBatch batch = pendingSets;
        if (batch != null) {
            pendingSets = null;
            batch.run();
        }
    }

    boolean resp3() {
        return protocol == 3;
    }
}
