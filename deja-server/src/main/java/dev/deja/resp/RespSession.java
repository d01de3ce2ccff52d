package dev.deja.resp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One RESP connection's state: protocol version, authentication, client name, the transaction it opened with
 * {@code MULTI}. Used only on its event loop.
 */
final class RespSession {

    private static final AtomicLong IDS = new AtomicLong();

    final long id = IDS.incrementAndGet();
    int protocol = 2;
    boolean authenticated;
    boolean closing;
    String clientName;
    /** The commands queued since MULTI, or null outside a transaction. */
    Transaction transaction;

    RespSession(boolean passwordRequired) {
        this.authenticated = !passwordRequired;
    }

    boolean resp3() {
        return protocol == 3;
    }
}
