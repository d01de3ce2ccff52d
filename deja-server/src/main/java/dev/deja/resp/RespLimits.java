package dev.deja.resp;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * Refuses, before anything is buffered, a command with more arguments or a bulk string longer than the server
 * accepts: the client gets a Redis error and only its connection is closed (its remaining bytes cannot be framed).
 */
final class RespLimits extends ChannelInboundHandlerAdapter {

    private final long maxArguments;
    private final int maxBulkBytes;

    RespLimits(long maxArguments, int maxBulkBytes) {
        this.maxArguments = maxArguments;
        this.maxBulkBytes = maxBulkBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        String refusal = null;
        if (message instanceof ArrayHeaderRedisMessage header && header.length() > maxArguments) {
            refusal = "ERR Protocol error: a command may have at most " + maxArguments + " arguments (got "
                    + header.length() + ")";
        } else if (message instanceof BulkStringHeaderRedisMessage header
                && header.bulkStringLength() > maxBulkBytes) {
            refusal = "ERR Protocol error: a bulk string may be at most " + maxBulkBytes + " bytes (got "
                    + header.bulkStringLength() + ")";
        }
        if (refusal == null) {
            ctx.fireChannelRead(message);
            return;
        }
        ReferenceCountUtil.release(message);
        ctx.channel().config().setAutoRead(false);
        // written from the tail so that the encoder, which sits after this handler, encodes it
        ctx.channel().writeAndFlush(new ErrorRedisMessage(refusal)).addListener(ChannelFutureListener.CLOSE);
    }
}
