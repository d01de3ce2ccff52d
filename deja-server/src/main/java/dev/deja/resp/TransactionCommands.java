package dev.deja.resp;

import dev.deja.server.ServerConfig;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Redis's transaction commands, with its replies and error strings: {@code MULTI}, {@code EXEC}, {@code DISCARD},
 * and {@code UNWATCH}; {@code WATCH} is refused, since deja keeps no versions of keys to check. The queueing itself
 * is in {@link RespCommands#execute}, where Redis has it too: a command is checked, then queued instead of run.
 *
 * <p>{@code EXEC} runs the queued commands one after another, in order, on the connection's network thread, and
 * answers an array of their replies (each in its own type: a RESP3 boolean stays one), once the writes among them
 * are as durable as {@code --fsync} says. A command failing at run time has its error in the array and the others
 * still run; nothing is rolled back, as in Redis. Unlike Redis, other connections' commands may run between them.
 */
final class TransactionCommands {

    /** Runs a command {@code MULTI} queued once it passed its checks: its reply, or a future of it. */
    interface QueuedRun {
        Object run(RespSession session, RespArgs args);
    }

    private final QueuedRun queuedRun;
    private final long maxArguments;
    private final long maxBytes;

    /** The transaction commands, whose {@code EXEC} runs each queued command with {@code queuedRun}. */
    TransactionCommands(ServerConfig config, QueuedRun queuedRun) {
        this.queuedRun = queuedRun;
        this.maxArguments = config.maxCommandArguments();
        this.maxBytes = config.maxBodyBytes();
    }

    /** Adds these commands to the table. */
    void register(CommandTable commands) {
        commands.add(RespCommand.read("MULTI", 1, this::multi));
        commands.add(RespCommand.write("EXEC", 1, this::exec));
        commands.add(RespCommand.read("DISCARD", 1, this::discard));
        commands.add(RespCommand.read("WATCH", -2, this::watch));
        // nothing is ever watched, so forgetting it all succeeds, as it does in Redis when nothing is watched
        commands.add(RespCommand.read("UNWATCH", 1, (s, a) -> Replies.OK));
    }

    private RedisMessage multi(RespSession session, RespArgs args) {
        if (session.transaction != null) {
            throw new RespError("ERR MULTI calls can not be nested");
        }
        session.transaction = new Transaction(maxArguments, maxBytes);
        return Replies.OK;
    }

    private RedisMessage discard(RespSession session, RespArgs args) {
        if (session.transaction == null) {
            throw new RespError("ERR DISCARD without MULTI");
        }
        session.transaction = null;
        return Replies.OK;
    }

    private RedisMessage watch(RespSession session, RespArgs args) {
        if (session.transaction != null) {
            throw new RespError("ERR WATCH inside MULTI is not allowed");
        }
        throw new RespError("ERR WATCH is not supported: deja has no optimistic locking (check-and-set"
                + " transactions); each command is atomic on its own key, so use SET NX, BF.ADD or DJ.CHECKTHENADD"
                + " to test and set in one step");
    }

    /** The replies of the queued commands as one array: at once, or a future of it if a write waits. */
    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object exec(RespSession session, RespArgs args) {
        Transaction transaction = session.transaction;
        if (transaction == null) {
            throw new RespError("ERR EXEC without MULTI");
        }
        session.transaction = null;
        if (transaction.doomed()) {
            throw new RespError("EXECABORT Transaction discarded because of previous errors.");
        }
        List<Object> replies = new ArrayList<>(transaction.commands().size());
        List<CompletableFuture<?>> waiting = new ArrayList<>();
        for (RespArgs queued : transaction.commands()) {
            Object reply = queuedRun.run(session, queued);
            if (reply instanceof CompletableFuture<?> future && !future.isDone()) {
                waiting.add(future);
            }
            replies.add(reply);
        }
        if (waiting.isEmpty()) {
            return array(replies);
        }
        return CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> array(replies));
    }

    /** The array of the replies; a future among them has completed, with a reply (never with an error). */
    private static RedisMessage array(List<Object> replies) {
        List<RedisMessage> items = new ArrayList<>(replies.size());
        for (Object reply : replies) {
            items.add((RedisMessage) (reply instanceof CompletableFuture<?> future ? future.join() : reply));
        }
        return Replies.array(items);
    }
}
