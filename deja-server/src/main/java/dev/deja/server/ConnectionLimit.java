package dev.deja.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Refuses connections beyond the configured number, with a front end's own refusal bytes, and counts the open
 * ones. One instance is shared by every connection of one front end, and each front end has its own, so that
 * clients of one protocol cannot take the connections of the other.
 */
@ChannelHandler.Sharable
final class ConnectionLimit extends ChannelInboundHandlerAdapter {

    private final AtomicInteger open = new AtomicInteger();
    private final int max;
    private final ByteBuf refusal;

    ConnectionLimit(int max, byte[] refusal) {
        this.max = max;
        this.refusal = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(refusal));
    }

    /** Connections open now, the refused ones still closing included. */
    int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open.incrementAndGet() > max) {
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(refusal.duplicate()).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        ctx.fireChannelInactive();
    }
}
