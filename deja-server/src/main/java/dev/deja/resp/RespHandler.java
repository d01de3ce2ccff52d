package dev.deja.resp;

import dev.deja.server.PipelinedHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns decoded RESP commands (arrays of bulk strings, or inline commands as redis-benchmark and telnet send them)
 * into arguments, runs them in order and writes one reply each; a message that is not a command is a protocol
 * error that closes only this connection.
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
        if (message instanceof ArrayRedisMessage array && !array.isNull()) {
            List<byte[]> values = new ArrayList<>(array.children().size());
            for (RedisMessage child : array.children()) {
                values.add(argument(child));
            }
            return new RespArgs(values);
        }
        if (message instanceof InlineCommandRedisMessage inline) {
            List<byte[]> values = new ArrayList<>();
            for (String word : inline.content().strip().split("\\s+")) {
                if (!word.isEmpty()) {
                    values.add(word.getBytes(StandardCharsets.UTF_8));
                }
            }
            return new RespArgs(values);
        }
        return null; // not a command: answered as a protocol error in execute
    }

    private static byte[] argument(RedisMessage child) {
        if (child instanceof FullBulkStringRedisMessage bulk && !bulk.isNull()) {
            ByteBuf content = bulk.content();
            return ByteBufUtil.getBytes(content, content.readerIndex(), content.readableBytes());
        }
        if (child instanceof SimpleStringRedisMessage simple) {
            return simple.content().getBytes(StandardCharsets.UTF_8);
        }
        return null;
    }

    @Override
    protected Object execute(ChannelHandlerContext ctx, RespArgs args) {
        if (args == null || args.values().contains(null)) {
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
        session.runGatheredWrites();
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
