package dev.deja.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

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
 * and turning reads off and on again costs two system calls per request. Reading pauses too once the waiting
 * requests hold {@link RequestMemory#PER_CONNECTION_ALLOWANCE} bytes. A connection whose replies cannot be written
 * to the socket (a client that does not read them) stops being read, and the requests it already sent wait until
 * it reads again, so its unread replies stay within the channel's write buffer and one batch.
 *
 * <p>The connection's {@link RequestGuard} is told when each request has been taken whole and when it has
 * executed, so that the bytes it holds count against the server's request memory until then; a
 * {@link RequestRefusal} it passes down is answered in its turn, and closes the connection.
 *
 * <p>A request that may take a second or more (a clear, a merge, a dump) is executed off the event loop
 * ({@link Offloaded}), so that it does not stall the other connections the loop serves.
 *
 * @param <R> the request a front end turns each decoded message into
 */
public abstract class PipelinedHandler<R> extends ChannelInboundHandlerAdapter {

    /** Requests waiting behind an executing batch at which the connection stops being read. */
    static final int PAUSE_AT = 16;

    private final RequestGuard guard;
    private final List<R> pending = new ArrayList<>();
    /** Bytes the requests in {@link #pending} hold, as {@link RequestGuard#completed} counted them. */
    private long pendingBytes;

    private boolean waiting;
    /** Whether this handler turned reading off while a batch executes. */
    private boolean paused;
    /** Whether the connection's guard refused it: it is never read again. */
    private boolean refusedConnection;

    /**
     * A reply after which the connection is closed (and later requests of the batch are not executed); like any
     * reply, it may be a future.
     */
    public record Closing(Object reply) {}

    /**
     * A reply computed off the event loop, for a request that may take a second or more: a clear writes the empty
     * content as a snapshot, a dump stages a whole filter, a merge ORs two; on the loop it would stall every
     * connection the loop serves. The work starts once the journal writes of the loop's turn are made (so after
     * everything the connection sent before it), and the connection's later requests are executed only once it is
     * done, so they see its effect; the loop serves its other connections meanwhile. The work returns a reply or a
     * future of one and turns its own failures into replies; it may be wrapped in a {@link Closing}.
     */
    public record Offloaded(Supplier<Object> work) {}

    /**
     * Threads for {@link Offloaded} work, shared by every connection: two, since the work is mostly disk-bound and a
     * connection has at most one at a time; idle ones end after a minute.
     */
    private static final ExecutorService OFF_LOOP = offLoopThreads();

    private static ExecutorService offLoopThreads() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "deja-admin-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** A handler whose connection is guarded by {@code guard}, which must come first in its pipeline. */
    protected PipelinedHandler(RequestGuard guard) {
        this.guard = guard;
    }

    /** Turns a decoded message into a request; the message is released after this returns. */
    protected abstract R request(ChannelHandlerContext ctx, Object message);

    /** Executes one request: its reply, a {@link CompletableFuture} of it, or a {@link Closing} one. */
    protected abstract Object execute(ChannelHandlerContext ctx, R request);

    /**
     * Called once the batch's requests have executed, before their replies are sent: a front end that gathered some
     * of them into one store call runs it, or has it run at the end of the loop's turn, here.
     */
    protected void endOfBatch(ChannelHandlerContext ctx) {}

    /** The reply that stands for a future that failed. */
    protected abstract Object failure(Throwable cause);

    /**
     * The request that stands for the guard's refusal of the connection; its execution must answer with a
     * {@link Closing} reply.
     */
    protected abstract R refused(RequestRefusal refusal);

    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            pending.add(request(ctx, message));
        } finally {
            ReferenceCountUtil.release(message);
        }
        pendingBytes += guard.completed();
        if (waiting
                && !paused
                && (pending.size() >= PAUSE_AT || pendingBytes >= RequestMemory.PER_CONNECTION_ALLOWANCE)) {
            paused = true;
            ctx.channel().config().setAutoRead(false);
            guard.pausedByServer();
        }
    }

    @Override
    public final void channelReadComplete(ChannelHandlerContext ctx) {
        if (pending.isEmpty() || waiting || !ctx.channel().isWritable()) {
            return; // an unwritable connection goes on once its client reads (channelWritabilityChanged)
        }
        List<R> batch = new ArrayList<>(pending);
        pending.clear();
        long batchBytes = pendingBytes;
        pendingBytes = 0;
        List<Object> replies = new ArrayList<>(batch.size());
        List<Runnable> offLoop = new ArrayList<>(1);
        LoopWrites writes = LoopWrites.current();
        writes.collect(() -> {
            for (int i = 0; i < batch.size(); i++) {
                Object reply = execute(ctx, batch.get(i));
                Object inner = reply instanceof Closing closing ? closing.reply() : reply;
                if (inner instanceof Offloaded offloaded) {
                    CompletableFuture<Object> done = new CompletableFuture<>();
                    replies.add(reply instanceof Closing ? new Closing(done) : done);
                    offLoop.add(() -> start(offloaded, done));
                    if (!(reply instanceof Closing)) {
                        pending.addAll(0, batch.subList(i + 1, batch.size())); // executed once it is done
                    }
                    break;
                }
                replies.add(reply);
                if (reply instanceof Closing) {
                    break;
                }
            }
            endOfBatch(ctx);
        });
        // the requests an offloaded one sent back to pending are given back with the rest, before they execute: at
        // most the rest of one batch, which the connection's limits bound
        guard.executed(batchBytes);
        waiting = true;
        // the replies of writes go out once the loop has written the journal records of this turn's requests, and
        // work off the loop starts then too
        Runnable then = offLoop.isEmpty()
                ? () -> answer(ctx, replies, 0)
                : () -> {
                    offLoop.getFirst().run();
                    answer(ctx, replies, 0);
                };
        if (!writes.thenRun(ctx.executor(), then)) {
            then.run();
        }
    }

    private static void start(Offloaded offloaded, CompletableFuture<Object> done) {
        try {
            // its outcome, a failure too, goes to done, which the connection awaits and answers
            CompletableFuture<Object> unused = CompletableFuture.supplyAsync(offloaded.work(), OFF_LOOP)
                    .thenCompose(reply -> reply instanceof CompletableFuture<?> future
                            ? future.thenApply(Object.class::cast)
                            : CompletableFuture.completedFuture(reply))
                    .whenComplete((reply, error) -> {
                        if (error == null) {
                            done.complete(reply);
                        } else {
                            done.completeExceptionally(error);
                        }
                    });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(e);
        }
    }

    /**
     * Writes the batch's replies once each is ready, then goes on with what arrived meanwhile: waits for the first
     * reply from {@code from} on that is not ready, then looks again from there. The replies of a batch are mostly
     * writes gathered into one store call, which complete together: one wait covers them, where a combined future of
     * all of them would cost a node per reply.
     */
    private void answer(ChannelHandlerContext ctx, List<Object> replies, int from) {
        for (int i = from; i < replies.size(); i++) {
            Object reply = replies.get(i);
            Object awaited = reply instanceof Closing closing ? closing.reply() : reply;
            if (awaited instanceof CompletableFuture<?> future && !future.isDone()) {
                int next = i;
                // the reply's own outcome, a failure too, is what answered writes: the wait's is not needed
                CompletableFuture<?> unused = future.whenComplete(
                        (ignored, error) -> ctx.executor().execute(() -> answer(ctx, replies, next)));
                return;
            }
        }
        answered(ctx, replies);
    }

    private void answered(ChannelHandlerContext ctx, List<Object> replies) {
        waiting = false;
        writeAll(ctx, replies);
        if (paused) {
            paused = false;
            ctx.channel().config().setAutoRead(ctx.channel().isWritable() && !refusedConnection);
            guard.resumedByServer();
        }
        if (!pending.isEmpty()) {
            channelReadComplete(ctx);
        }
    }

    private void writeAll(ChannelHandlerContext ctx, List<Object> replies) {
        // the writes' futures are not needed: a write failing on I/O closes the connection (Netty's autoClose), and
        // with the void promise the failure reaches the handler's exceptionCaught, which closes it too
        for (Object reply : replies) {
            if (reply instanceof CompletableFuture<?> future) {
                reply = outcome(future);
            }
            if (reply instanceof Closing closing) {
                ChannelFuture unused = ctx.write(
                        closing.reply() instanceof CompletableFuture<?> future ? outcome(future) : closing.reply());
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                pending.clear();
                return;
            }
            ChannelFuture unused = ctx.write(reply, ctx.voidPromise());
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
            boolean writable = ctx.channel().isWritable();
            ctx.channel().config().setAutoRead(writable && !refusedConnection);
            if (writable) {
                channelReadComplete(ctx); // the requests that waited for the client to read its replies
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof RequestRefusal refusal) {
            refusedConnection = true;
            if (!ctx.channel().isWritable()) {
                // a client that does not read its replies would not read the refusal either; a failure to close
                // leaves nothing to do
                ChannelFuture unused = ctx.close();
                return;
            }
            pending.add(refused(refusal));
            channelReadComplete(ctx);
        } else if (event instanceof IdleStateEvent) {
            ChannelFuture unused = ctx.close(); // a failure to close leaves nothing to do
        } else {
            ctx.fireUserEventTriggered(event);
        }
    }
}
