package dev.deja.resp;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The commands one connection queued between {@code MULTI} and {@code EXEC}, as Redis keeps them: each checked
 * (name, arity, authentication) when queued, run only by {@code EXEC}. A command refused when queued
 * dooms the transaction ({@code EXEC} then answers {@code EXECABORT}); from then on nothing more is kept, as in
 * Redis 7, since none of it will run.
 *
 * <p>The queue holds at most what one command may ({@code 2 * --max-batch + 16} arguments, {@code --max-body-bytes}
 * bytes of arguments together): without a bound, a client that never sent {@code EXEC} could make the server hold
 * any amount. Redis bounds it by refusing queued commands once it is out of memory; deja refuses the command that
 * crosses the limit the same way, so the transaction is doomed rather than cut short.
 */
final class Transaction {

    /** The commands that act at once inside MULTI instead of being queued, as in Redis 7. */
    private static final Set<String> RUN_AT_ONCE = Set.of("EXEC", "DISCARD", "MULTI", "WATCH", "QUIT", "RESET");

    private final long maxArguments;
    private final long maxBytes;
    private final List<RespArgs> queued = new ArrayList<>();
    private long arguments;
    private long bytes;
    private boolean doomed;

    Transaction(long maxArguments, long maxBytes) {
        this.maxArguments = maxArguments;
        this.maxBytes = maxBytes;
    }

    /** Whether the command of this upper-case name acts at once inside MULTI (EXEC, DISCARD, ...), unqueued. */
    static boolean runsAtOnce(String command) {
        return RUN_AT_ONCE.contains(command);
    }

    /** Queues a command that passed its checks; returns the refusal if it would exceed the limit, else null. */
    String queue(RespArgs args) {
        if (doomed) {
            return null; // answered QUEUED as Redis does, but never run, so not kept
        }
        long size = 0;
        for (int i = 0; i < args.size(); i++) {
            size += args.bytes(i).length;
        }
        if (arguments + args.size() > maxArguments || bytes + size > maxBytes) {
            doom();
            return "ERR transaction too large: the commands queued since MULTI may hold at most " + maxArguments
                    + " arguments and " + maxBytes + " bytes together, as one command may (--max-batch,"
                    + " --max-body-bytes)";
        }
        arguments += args.size();
        bytes += size;
        queued.add(args);
        return null;
    }

    /** Makes EXEC refuse the transaction: a command was refused while queued. */
    void doom() {
        doomed = true;
        queued.clear();
    }

    boolean doomed() {
        return doomed;
    }

    /** The heap the queued commands hold: their bytes and {@link RespArgs#ARGUMENT_OVERHEAD} per argument. */
    long heldBytes() {
        return doomed ? 0 : bytes + RespArgs.ARGUMENT_OVERHEAD * arguments;
    }

    /** The queued commands' arguments, in the order they came. */
    List<RespArgs> commands() {
        return queued;
    }
}
