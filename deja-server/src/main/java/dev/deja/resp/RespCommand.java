package dev.deja.resp;

/**
 * One RESP command: its name, arity (Redis's convention: exact argument count including the name, or at least
 * {@code -arity} when negative), what it may touch and what it does.
 *
 * @param name       upper-case name
 * @param arity      Redis-style arity
 * @param access     what it may touch, which says whether it runs before the connection authenticates and how
 *                   {@code COMMAND} reports it
 * @param action     what it does
 * @param subcommand for a command with subcommands ({@code CLIENT}, ...), the check of the subcommand's name and
 *                   arity that Redis makes before running it, and so before queueing it inside MULTI; or null
 */
record RespCommand(String name, int arity, Access access, Action action, Check subcommand) {

    /** What a command may touch. */
    enum Access {
        /** The connection itself ({@code AUTH}, {@code HELLO}, ...): it runs before the connection authenticates. */
        CONNECTION,
        /** Nothing it changes: it reads or answers, once the connection has authenticated. */
        READ,
        /** Data it may change, once the connection has authenticated. */
        WRITE
    }

    /** A command that reads or answers, once the connection has authenticated. */
    static RespCommand read(String name, int arity, Action action) {
        return new RespCommand(name, arity, Access.READ, action, null);
    }

    /** A command that may change data, once the connection has authenticated. */
    static RespCommand write(String name, int arity, Action action) {
        return new RespCommand(name, arity, Access.WRITE, action, null);
    }

    /** A command about the connection itself ({@code AUTH}, {@code HELLO}, ...), which runs before it authenticates. */
    static RespCommand connection(String name, int arity, Action action) {
        return new RespCommand(name, arity, Access.CONNECTION, action, null);
    }

    /** This command, with subcommands whose names and arities {@code check} refuses before it runs. */
    RespCommand withSubcommands(Check check) {
        return new RespCommand(name, arity, access, action, check);
    }

    /** Whether it runs on a connection that has not authenticated yet. */
    boolean beforeAuth() {
        return access == Access.CONNECTION;
    }

    /** Whether it may change data, as {@code COMMAND} reports it. */
    boolean write() {
        return access == Access.WRITE;
    }

    /** A command's body: the reply to one call, or a future of it for a write waiting for the journal. */
    interface Action {
        Object run(RespSession session, RespArgs args);
    }

    /**
     * The body of a command that may take a second or more (it writes, reads or deletes a whole store): executed off
     * the event loop ({@link dev.deja.server.PipelinedHandler.Offloaded}), except inside {@code EXEC}, which runs its
     * queued commands together.
     */
    interface Slow extends Action {}

    /** Marks {@code action} as {@link Slow}. */
    static Action slow(Action action) {
        return (Slow) action::run;
    }

    /** A check made before a command runs or is queued: the error that refuses it, or null. */
    interface Check {
        String refusal(RespArgs args);
    }

    boolean arityMatches(int argumentCount) {
        return arityFits(arity, argumentCount);
    }

    /** Redis's arity convention: exactly {@code arity} arguments, or at least {@code -arity} when negative. */
    static boolean arityFits(int arity, int argumentCount) {
        return arity >= 0 ? argumentCount == arity : argumentCount >= -arity;
    }
}
