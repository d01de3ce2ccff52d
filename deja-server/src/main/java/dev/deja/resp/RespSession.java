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
    /**
     * Commands that may authenticate the connection ({@link #mayAuthenticate}) received but not executed yet: while
     * one is, the commands after it are not held to the limits of an unauthenticated connection, since it may
     * authenticate them, as in Redis, which executes each command as it arrives.
     */
    int authenticationsPending;

    RespSession(boolean passwordRequired) {
        this.authenticated = !passwordRequired;
    }

    /** Whether the connection may send only the small commands of a client that has not authenticated. */
    boolean smallRequestsOnly() {
        return !authenticated && authenticationsPending == 0;
    }

    /** Whether {@code args}, received on this connection now, is a command that may authenticate it. */
    boolean mayAuthenticate(RespArgs args) {
        return !authenticated && args.size() > 0 && (args.is(0, "AUTH") || args.is(0, "HELLO"));
    }

    /** Called once a command has executed: one that may have authenticated is no longer pending. */
    void executed(RespArgs args) {
        if (authenticationsPending > 0 && args.size() > 0 && (args.is(0, "AUTH") || args.is(0, "HELLO"))) {
            authenticationsPending--;
        }
    }

    boolean resp3() {
        return protocol == 3;
    }
}
