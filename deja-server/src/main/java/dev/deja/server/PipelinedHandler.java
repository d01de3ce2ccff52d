package dev.deja.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * The part of a front end's handler that pipelining needs: requests decoded from one read of the socket are
 * collected, executed as one batch and answered with one flush.
 *
 * <p>It also applies back-pressure (a connection whose replies cannot be written stops being read, so a client
 * that pipelines without reading cannot make the server buffer without bound) and closes idle connections.
 *
 * @param <R> the request a front end turns each decoded message into
 */
public abstract class PipelinedHandler<R> extends ChannelInboundHandlerAdapter {

    private final List<R> pending = new ArrayList<>();

    /** Turns a decoded message into a request; the message is released after this returns. */
    protected abstract R request(ChannelHandlerContext ctx, Object message);

    /** Executes a batch of requests in order and writes (without flushing) one reply per request. */
    protected abstract void execute(ChannelHandlerContext ctx, List<R> requests);

    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            pending.add(request(ctx, message));
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    @Override
    public final void channelReadComplete(ChannelHandlerContext ctx) {
        if (!pending.isEmpty()) {
            List<R> batch = new ArrayList<>(pending);
            pending.clear();
            execute(ctx, batch);
        }
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent) {
            ctx.close();
        } else {
            ctx.fireUserEventTriggered(event);
        }
    }
}
