package dev.deja.resp;

import dev.deja.exact.StoreReadException;
import dev.deja.journal.JournalWriteException;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceException;
import dev.deja.seen.StoreClosedException;
import dev.deja.server.Failures;
import dev.deja.server.PipelinedHandler;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch of RESP commands: it puts every command family's commands in one table, then checks each request
 * against it (arity, subcommand, authentication), queues it inside {@code MULTI} or runs it, and turns failures into
 * Redis error replies.
 */
final class RespCommands {

    private static final Logger log = LoggerFactory.getLogger(RespCommands.class);
    static final String FRONT_END = "resp";
    private static final RedisMessage QUEUED = Replies.simple("QUEUED");

    private final CommandTable table;
    private final ServerContext context;

    RespCommands(ServerContext context) {
        this.context = context;
        this.table = new CommandTable(command ->
                context.metrics().operationsCounter(FRONT_END, command.name().toLowerCase(Locale.ROOT)));
        new ConnectionCommands(context, table).register();
        new TransactionCommands(context.config(), this::runQueued).register(table);
        new BloomCommands(context).register(table);
        new CuckooCommands(context).register(table);
        new DejaCommands(context).register(table);
        KvCommands kv = new KvCommands(context);
        kv.register(table);
        new KeyspaceCommands(context, kv).register(table);
    }

    /**
     * Runs one command, or queues it inside MULTI: its reply, or a future of it for a write waiting for the journal;
     * never fails. The checks come first, as in Redis's {@code processCommand}, so a command refused by them inside
     * MULTI is not queued and dooms the transaction.
     */
    Object execute(RespSession session, RespArgs args) {
        if (args.size() == 0) {
            return failure("ERR empty command", "empty");
        }
        CommandTable.Entry entry = table.find(args);
        if (entry == null) {
            return refuse(session, null, unknown(args), "unknown_command");
        }
        RespCommand command = entry.command;
        // Redis's order: a command that does not exist or has the wrong number of arguments is refused as such even
        // before AUTH, and only a well-formed one gets NOAUTH
        if (!command.arityMatches(args.size())) {
            return refuse(session, command, RespError.arity(args.string(0)).getMessage(), "arity");
        }
        String refusal =
                command.subcommand() == null ? null : command.subcommand().refusal(args);
        if (refusal != null) {
            return refuse(session, command, refusal, "subcommand");
        }
        if (!session.authenticated && !command.beforeAuth()) {
            return refuse(session, command, "NOAUTH Authentication required.", "noauth");
        }
        Transaction transaction = session.transaction;
        if (transaction != null && !Transaction.runsAtOnce(command.name())) {
            String tooLarge = transaction.queue(args);
            return tooLarge == null ? QUEUED : failure(tooLarge, "transaction_too_large");
        }
        if (command.action() instanceof RespCommand.Slow) {
            Gathering.current().runNow(); // on the loop, whose gathered writes these are
            return new PipelinedHandler.Offloaded(() -> invoke(session, entry, args));
        }
        return run(session, entry, args);
    }

    /** Runs a command that passed its checks when {@code MULTI} queued it: what {@code EXEC} runs. */
    private Object runQueued(RespSession session, RespArgs args) {
        return run(session, table.find(args), args);
    }

    /** Runs a command that passed its checks. */
    private Object run(RespSession session, CommandTable.Entry entry, RespArgs args) {
        if (!Gathering.gathers(args)) {
            Gathering.current().runNow(); // what the client sent before this command takes effect before it
        }
        return invoke(session, entry, args);
    }

    /** Counts and runs the command's action, its failures turned into replies. */
    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which the connection awaits (PipelinedHandler)
    private Object invoke(RespSession session, CommandTable.Entry entry, RespArgs args) {
        String name = entry.command.name();
        try {
            entry.counter().increment();
            Object reply = entry.command.action().run(session, args);
            if (reply instanceof CompletableFuture<?> future) {
                return future.handle((value, error) -> error == null ? value : failure(name, Failures.cause(error)));
            }
            return reply;
        } catch (RuntimeException e) {
            return failure(name, e);
        }
    }

    /**
     * A command refused by the checks before it runs. Inside MULTI that also dooms the transaction, as in Redis;
     * an EXEC so refused ends it at once, with Redis's {@code EXECABORT} and the reason, and outside MULTI is
     * answered {@code EXECABORT} too, as Redis 7 answers it (its {@code rejectCommand}).
     */
    private RedisMessage refuse(RespSession session, RespCommand command, String message, String reason) {
        Transaction transaction = session.transaction;
        if (command != null && command.name().equals("EXEC")) {
            session.transaction = null;
            String why = message.startsWith("ERR ") ? message.substring(4) : message;
            return failure("EXECABORT Transaction discarded because of: " + why, reason);
        }
        if (transaction != null) {
            transaction.doom();
        }
        return failure(message, reason);
    }

    private RedisMessage failure(String name, Throwable error) {
        return switch (error) {
            case RespError e -> failure(e.getMessage(), "refused");
            // Redis's own prefix for a write refused by its memory limit
            case NamespaceException e
            when e.problem() == NamespaceException.Problem.NO_MEMORY -> failure("OOM " + e.getMessage(), "no_memory");
            case NamespaceException e ->
                failure("ERR " + e.getMessage(), e.problem().name().toLowerCase(Locale.ROOT));
            case IllegalArgumentException e -> failure("ERR " + e.getMessage(), "bad_argument");
            case UnsupportedOperationException e -> failure("ERR " + e.getMessage(), "bad_argument");
            // Redis's own prefix for a write refused because it cannot persist
            case JournalWriteException e -> failure("MISCONF " + e.getMessage(), "journal");
            // a lookup the exact store could not complete (a damaged table file): not about persisting
            case StoreReadException e -> failure("ERR " + e.getMessage(), "read");
            // the exact store could not write (a full disk): refused the same way
            case UncheckedIOException e -> failure("MISCONF " + e.getMessage(), "storage");
            case StoreClosedException e -> failure("ERR " + Namespace.closedMeanwhile(e), "closed");
            default -> {
                log.error("RESP command {} failed", name, error);
                yield failure("ERR cannot serve this command now: " + error, "unavailable");
            }
        };
    }

    /** Counts a request that broke the protocol (a malformed frame, a bulk string or command over its limit). */
    void countProtocolError() {
        context.metrics().error(FRONT_END, "protocol");
    }

    private RedisMessage failure(String message, String reason) {
        context.metrics().error(FRONT_END, reason);
        return Replies.error(message);
    }

    /** Redis's words, and its bounds: the name cut at 128 characters, the echoed arguments at 128 in all. */
    private static String unknown(RespArgs args) {
        StringBuilder echoed = new StringBuilder();
        for (int i = 1; i < args.size() && echoed.length() < 128; i++) {
            String arg = args.string(i);
            int room = 128 - echoed.length();
            echoed.append('\'').append(arg, 0, Math.min(arg.length(), room)).append("' ");
        }
        String name = args.string(0);
        return "ERR unknown command '" + name.substring(0, Math.min(name.length(), 128))
                + "', with args beginning with: " + echoed;
    }
}
