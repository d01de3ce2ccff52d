package dev.deja.resp;

import dev.deja.server.PipelinedHandler;
import dev.deja.server.RequestGuard;
import dev.deja.server.RequestRefusal;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the commands {@link CommandAssembler} passes on, in order, and writes one reply each; a command with an
 * argument that is not a string is a protocol error that closes only this connection.
 */
final class RespHandler extends PipelinedHandler<Object> {

    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    private final RespCommands commands;
    private final RespSession session;
    private final RequestGuard guard;
    /** What the connection's transaction held after the last command, counted by the guard as kept. */
    private long transactionBytes;

    RespHandler(RespCommands commands, RespSession session, RequestGuard guard) {
        super(guard);
        this.commands = commands;
        this.session = session;
        this.guard = guard;
    }

    @Override
    protected Object request(ChannelHandlerContext ctx, Object message) {
        // a RespArgs or a CommandAssembler.Violation; nothing else comes from the assembler
        if (message instanceof RespArgs) {
            return message;
        }
        // a protocol error: counted here, while the request guard counts the refusals it makes itself (refused)
        commands.countProtocolError();
        return message instanceof CommandAssembler.Violation ? message : CommandAssembler.NOT_A_COMMAND;
    }

    @Override
    protected Object execute(ChannelHandlerContext ctx, Object request) {
        if (request instanceof CommandAssembler.Violation violation) {
            return new Closing(Replies.error(violation.message()));
        }
        RespArgs args = (RespArgs) request;
        if (args.size() == 0) {
            // an empty inline line, which Redis ignores too
            return Unpooled.EMPTY_BUFFER;
        }
        Object reply = commands.execute(session, args);
        session.executed(args);
        keepTransaction();
        return session.closing ? new Closing(reply) : reply;
    }

    @Override
    protected void endOfBatch(ChannelHandlerContext ctx) {
        Gathering.current().runAtEndOfTurn(ctx.executor());
    }

    /**
     * Keeps what the commands queued since MULTI hold counted against the request memory until EXEC or DISCARD lets
     * them go, as if they were still being received.
     */
    private void keepTransaction() {
        long now = session.transaction == null ? 0 : session.transaction.heldBytes();
        if (now > transactionBytes) {
            guard.kept(now - transactionBytes);
        } else if (now < transactionBytes) {
            guard.let(transactionBytes - now);
        }
        transactionBytes = now;
    }

    @Override
    protected Object refused(RequestRefusal refusal) {
        return new CommandAssembler.Violation("ERR " + refusal.message());
    }

    @Override
    protected Object failure(Throwable cause) {
        log.error("RESP command failed", cause);
        return Replies.error("ERR internal error: " + cause);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("RESP connection {} closed after an error", ctx.channel().remoteAddress(), cause);
        if (!ctx.channel().isActive()) {
            return;
        }
        if (cause instanceof DecoderException) {
            // bytes Netty's decoder cannot parse: the commands before them are answered, then the error, then close
            ctx.channel().config().setAutoRead(false);
            Throwable root = cause;
            while (root.getCause() != null) {
                root = root.getCause(); // Netty wraps the decoder's own exception; its message is what helps
            }
            channelRead(ctx, new CommandAssembler.Violation("ERR Protocol error: " + root.getMessage()));
            channelReadComplete(ctx);
        } else {
            ChannelFuture unused = ctx.close(); // a failure to close leaves nothing to do
        }
    }
}
