package dev.deja.resp;

/**
 * One RESP command: its name, arity (Redis's convention: exact argument count including the name, or at least
 * {@code -arity} when negative) and what it does.
 *
 * @param name       upper-case name
 * @param arity      Redis-style arity
 * @param beforeAuth whether it runs on a connection that has not authenticated yet
 * @param write      whether it may change data (reported by {@code COMMAND})
 * @param action     what it does
 */
record RespCommand(String name, int arity, boolean beforeAuth, boolean write, Action action) {

    /** A command's body: the reply to one call, or a future of it for a write waiting for the journal. */
    interface Action {
        Object run(RespSession session, RespArgs args);
    }

    boolean arityMatches(int argumentCount) {
        return arity >= 0 ? argumentCount == arity : argumentCount >= -arity;
    }
}
