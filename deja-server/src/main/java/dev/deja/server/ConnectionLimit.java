package dev.deja.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Refuses connections beyond the configured number, with a front end's own refusal bytes, and counts the open
 * ones. One instance is shared by every connection of one front end, and each front end has its own, so that
 * clients of one protocol cannot take the connections of the other.
 */
@ChannelHandler.Sharable
final class ConnectionLimit extends ChannelInboundHandlerAdapter {

    /** How long a refused connection is read, at most, for its client to close it first. */
    static final int LINGER_SECONDS = 2;

    private static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf(ConnectionLimit.class, "refused");

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
            refuse(ctx);
            return;
        }
        ctx.fireChannelActive();
    }

    /**
     * Writes the refusal and ends the output after it, then reads and drops what the client sends until it closes
     * the connection, or for {@link #LINGER_SECONDS}. Closing a socket whose received bytes were never read resets
     * the connection, and a client told of the reset may lose the refusal before it reads it (a request sent at once,
     * as HTTP clients do).
     */
    private void refuse(ChannelHandlerContext ctx) {
        ctx.channel().attr(REFUSED).set(Boolean.TRUE);
        ChannelFuture written = ctx.writeAndFlush(refusal.duplicate());
        written.addListener(done -> {
            if (done.isSuccess() && ctx.channel() instanceof DuplexChannel duplex) {
                ChannelFuture unused = duplex.shutdownOutput(); // a failure leaves the close below to end it
                ScheduledFuture<?> unusedClose =
                        ctx.executor().schedule(() -> close(ctx), LINGER_SECONDS, TimeUnit.SECONDS);
            } else {
                ChannelFuture unused = ctx.close();
            }
        });
    }

    private static void close(ChannelHandlerContext ctx) {
        ChannelFuture unused = ctx.close(); // closed already when its client closed first
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (Boolean.TRUE.equals(ctx.channel().attr(REFUSED).get())) {
            ReferenceCountUtil.release(message); // a refused connection's bytes are read only to be dropped
            return;
        }
        ctx.fireChannelRead(message);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        ctx.fireChannelInactive();
    }
}
