package dev.deja.resp;

import dev.deja.server.PipelinedHandler;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the commands {@link CommandAssembler} passes on, in order, and writes one reply each; a command with an
 * argument that is not a string is a protocol error that closes only this connection.
 */
final class RespHandler extends PipelinedHandler<RespArgs> {

    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    private final RespCommands commands;
    private final RespSession session;

    RespHandler(RespCommands commands, boolean passwordRequired) {
        this.commands = commands;
        this.session = new RespSession(passwordRequired);
    }

    @Override
    protected RespArgs request(ChannelHandlerContext ctx, Object message) {
        // anything else is CommandAssembler.NOT_A_COMMAND, a protocol error answered in execute
        return message instanceof RespArgs args ? args : null;
    }

    @Override
    protected Object execute(ChannelHandlerContext ctx, RespArgs args) {
        if (args == null) {
            return new Closing(new ErrorRedisMessage("ERR Protocol error: expected an array of bulk strings"));
        }
        if (args.size() == 0) {
            // an empty inline line, which Redis ignores too
            return Unpooled.EMPTY_BUFFER;
        }
        Object reply = commands.execute(session, args);
        return session.closing ? new Closing(reply) : reply;
    }

    @Override
    protected void endOfBatch(ChannelHandlerContext ctx) {
        KvGathering.current().runAtEndOfTurn(ctx.executor());
    }

    @Override
    protected Object failure(Throwable cause) {
        log.error("RESP command failed", cause);
        return new ErrorRedisMessage("ERR internal error: " + cause);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("RESP connection {} closed after an error", ctx.channel().remoteAddress(), cause);
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(new ErrorRedisMessage("ERR Protocol error: " + cause.getMessage()))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }
}
