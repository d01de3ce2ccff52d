package dev.deja.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * The part of a front end's handler that pipelining needs: requests decoded from one read of the socket are
 * collected, executed in order as one batch, their journal records written with those of every other connection
 * the event loop served in the same turn, one write per namespace ({@link LoopWrites}), and answered with one
 * flush.
 *
 * <p>A reply may be a future (a write waiting for the journal): then the batch's replies are written, in order,
 * once every one of them is ready, and requests that arrive meanwhile wait for the next batch. A client can never
 * have more than one batch executing; once {@link #PAUSE_AT} requests wait behind it the connection stops being
 * read, so when the disk is slower than the writes the server answers more slowly instead of buffering without
 * bound. Reading is not paused for every waiting batch: a client waiting for its one reply sends nothing more,
 * and turning reads off and on again costs two system calls per request. A connection whose replies cannot be
 * written to the socket stops being read too.
 *
 * @param <R> the request a front end turns each decoded message into
 */
public abstract class PipelinedHandler<R> extends ChannelInboundHandlerAdapter {

    /** Requests waiting behind an executing batch at which the connection stops being read. */
    static final int PAUSE_AT = 16;

    private final List<R> pending = new ArrayList<>();
    private boolean waiting;
    /** Whether this handler turned reading off while a batch executes. */
    private boolean paused;

    /**
     * A reply after which the connection is closed (and later requests of the batch are not executed); like any
     * reply, it may be a future.
     */
    public record Closing(Object reply) {
    }

    /** Turns a decoded message into a request; the message is released after this returns. */
    protected abstract R request(ChannelHandlerContext ctx, Object message);

    /** Executes one request: its reply, a {@link CompletableFuture} of it, or a {@link Closing} one. */
    protected abstract Object execute(ChannelHandlerContext ctx, R request);

    /**
     * Called once the batch's requests have executed, before their replies are sent: a front end that gathered some
     * of them into one store call runs it, or has it run at the end of the loop's turn, here.
     */
    protected void endOfBatch(ChannelHandlerContext ctx) {
    }

    /** The reply that stands for a future that failed. */
    protected abstract Object failure(Throwable cause);

    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            pending.add(request(ctx, message));
        } finally {
            ReferenceCountUtil.release(message);
        }
        if (waiting && !paused && pending.size() >= PAUSE_AT) {
            paused = true;
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public final void channelReadComplete(ChannelHandlerContext ctx) {
        if (pending.isEmpty() || waiting) {
            return;
        }
        List<R> batch = new ArrayList<>(pending);
        pending.clear();
        List<Object> replies = new ArrayList<>(batch.size());
        LoopWrites writes = LoopWrites.current();
        writes.collect(() -> {
            for (R request : batch) {
                Object reply = execute(ctx, request);
                replies.add(reply);
                if (reply instanceof Closing) {
                    break;
                }
            }
            endOfBatch(ctx);
        });
        waiting = true;
        // the replies of writes go out once the loop has written the journal records of this turn's requests
        if (!writes.thenRun(ctx.executor(), () -> answer(ctx, replies))) {
            answer(ctx, replies);
        }
    }

    /** Writes the batch's replies once each is ready, then goes on with what arrived meanwhile. */
    private void answer(ChannelHandlerContext ctx, List<Object> replies) {
        // one pending reply per turn is the common case of clients that do not pipeline: it is waited on itself,
        // without a list or allOf
        CompletableFuture<?> first = null;
        List<CompletableFuture<?>> more = null;
        for (Object reply : replies) {
            Object awaited = reply instanceof Closing closing ? closing.reply() : reply;
            if (awaited instanceof CompletableFuture<?> future && !future.isDone()) {
                if (first == null) {
                    first = future;
                } else {
                    if (more == null) {
                        more = new ArrayList<>();
                        more.add(first);
                    }
                    more.add(future);
                }
            }
        }
        if (first == null) {
            answered(ctx, replies);
            return;
        }
        CompletableFuture<?> all = more == null
                ? first : CompletableFuture.allOf(more.toArray(CompletableFuture[]::new));
        all.whenComplete((ignored, error) -> ctx.executor().execute(() -> answered(ctx, replies)));
    }

    private void answered(ChannelHandlerContext ctx, List<Object> replies) {
        waiting = false;
        writeAll(ctx, replies);
        if (paused) {
            paused = false;
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }
        if (!pending.isEmpty()) {
            channelReadComplete(ctx);
        }
    }

    private void writeAll(ChannelHandlerContext ctx, List<Object> replies) {
        for (Object reply : replies) {
            if (reply instanceof CompletableFuture<?> future) {
                reply = outcome(future);
            }
            if (reply instanceof Closing closing) {
                ctx.write(closing.reply() instanceof CompletableFuture<?> future ? outcome(future) : closing.reply());
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                pending.clear();
                return;
            }
            ctx.write(reply);
        }
        ctx.flush();
    }

    /** The reply a completed future stands for: its value, or the reply {@link #failure} makes of its error. */
    private Object outcome(CompletableFuture<?> future) {
        return switch (future.state()) {
            case SUCCESS -> future.resultNow();
            case FAILED -> failure(Failures.cause(future.exceptionNow()));
            case CANCELLED -> failure(new CancellationException("the request was cancelled"));
            case RUNNING -> throw new IllegalStateException("a reply was written before its request completed");
        };
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (!waiting) {
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }
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
