package dev.deja.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The first handler of every client connection: it bounds what the connection's requests may hold, and how long
 * one may take to arrive, whatever the protocol.
 *
 * <p>Memory. Every byte read counts as held by the request being received until the front end's handler takes
 * that request whole ({@link #completed}); it then stays held until the request has executed ({@link #executed}).
 * Decoders may count memory of their own beside the bytes read ({@link #hold}). A request being received may hold
 * at most {@code maxRequestBytes}, or {@code smallRequestBytes} while {@code smallRequestsOnly} says so (a RESP
 * connection that has not authenticated). What a connection holds beyond {@link RequestMemory#PER_CONNECTION_ALLOWANCE}
 * comes from the server's {@link RequestMemory}. Bytes are counted as they arrive, never as a request announces
 * them, so a promise of a large body costs nothing until its bytes come. A read is counted whole to the request being
 * received when it arrives: a request that begins in the read where the one before it ends is counted from its next
 * read on, so a connection may hold up to one read (Netty reads at most 64 KiB at a time) more than is counted.
 *
 * <p>Time. A request must arrive whole within {@code timeoutNanos} of its first byte, or of the moment its decoder
 * saw it begin ({@link #started}), however slowly its bytes trickle in; time the server itself stops reading the
 * connection to catch up with its earlier requests ({@link #pausedByServer}) does not count. The wait between
 * requests is left to the front end's idle timeout.
 *
 * <p>A connection that crosses a limit is read no more: the guard passes a {@link RequestRefusal} down the
 * pipeline, which the front end's handler answers after the requests received before it, then closes the
 * connection. Other connections are not affected. Used only on the connection's event loop.
 */
public final class RequestGuard extends ChannelInboundHandlerAdapter {

    private final RequestMemory memory;
    private final long maxRequestBytes;
    private final long smallRequestBytes;
    private final BooleanSupplier smallRequestsOnly;
    private final long timeoutNanos;
    private final Consumer<RequestRefusal.Reason> refusals;

    private ChannelHandlerContext ctx;
    /** Bytes held by the request being received. */
    private long receiving;
    /**
     * Bytes held by this connection: the request being received, those received whole and not yet executed, and
     * those it keeps after they executed ({@link #kept}).
     */
    private long held;
    /** Bytes {@link #kept} since the last {@link #executed}, which that call does not give back. */
    private long keptSinceExecuted;
    /** When the request being received began, or -1 between requests. */
    private long startedAt = -1;
    /** When the server stopped reading to catch up, or -1 while it reads. */
    private long pausedAt = -1;

    private ScheduledFuture<?> timer;
    private boolean refused;

    /**
     * A guard for one connection.
     *
     * @param memory            the server's request memory
     * @param maxRequestBytes   the most a request being received may hold
     * @param smallRequestBytes the most it may hold while {@code smallRequestsOnly} answers true
     * @param smallRequestsOnly whether the connection may only send small requests now
     * @param timeoutNanos      how long a request may take to arrive; 0 for no limit
     * @param refusals          told of each refusal, to count it
     */
    public RequestGuard(
            RequestMemory memory,
            long maxRequestBytes,
            long smallRequestBytes,
            BooleanSupplier smallRequestsOnly,
            long timeoutNanos,
            Consumer<RequestRefusal.Reason> refusals) {
        this.memory = memory;
        this.maxRequestBytes = maxRequestBytes;
        this.smallRequestBytes = smallRequestBytes;
        this.smallRequestsOnly = smallRequestsOnly;
        this.timeoutNanos = timeoutNanos;
        this.refusals = refusals;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (!(message instanceof ByteBuf bytes)) {
            ctx.fireChannelRead(message);
            return;
        }
        if (refused || !bytes.isReadable()) {
            // a refused connection's later bytes cannot be framed, and are not answered
            ReferenceCountUtil.release(message);
            return;
        }
        started();
        if (!hold(bytes.readableBytes())) {
            ReferenceCountUtil.release(message);
            return;
        }
        ctx.fireChannelRead(message);
    }

    /**
     * Counts {@code bytes} more held by the request being received; false, once the connection is refused, when
     * they are more than it may hold or than the server's request memory has room for.
     */
    public boolean hold(long bytes) {
        if (refused) {
            return false;
        }
        boolean small = smallRequestsOnly.getAsBoolean();
        long limit = small ? smallRequestBytes : maxRequestBytes;
        if (receiving + bytes > limit) {
            refuse(
                    RequestRefusal.Reason.TOO_LARGE,
                    small
                            ? "request too large before authentication: until it authenticates, a connection's request"
                                    + " may hold at most " + limit + " bytes"
                            : "request too large: a request may hold at most " + limit + " bytes with its framing"
                                    + " (set by --max-body-bytes, --max-batch and --max-key-bytes)");
            return false;
        }
        long shared = beyondAllowance(held + bytes) - beyondAllowance(held);
        if (shared > 0 && !memory.take(shared)) {
            refuse(
                    RequestRefusal.Reason.MEMORY_FULL,
                    "server busy: the requests being received hold all of the"
                            + " server's request memory (--request-memory, " + memory.limit() + " bytes); retry later");
            return false;
        }
        receiving += bytes;
        held += bytes;
        return true;
    }

    /** Marks the start of a request, when its decoder sees it begin before the guard does; idempotent. */
    public void started() {
        if (startedAt >= 0 || timeoutNanos == 0) {
            return;
        }
        startedAt = System.nanoTime();
        if (timer == null) {
            timer = ctx.executor().schedule(this::checkTimeout, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Called by the front end's handler when it takes a request whole: the bytes the request held, which stay held
     * until {@link #executed}; its clock stops.
     */
    public long completed() {
        long bytes = receiving;
        receiving = 0;
        startedAt = -1;
        return bytes;
    }

    /**
     * Gives back the bytes of requests that have executed ({@link #completed}'s results), but those {@link #kept}
     * meanwhile.
     */
    public void executed(long bytes) {
        long kept = Math.min(bytes, keptSinceExecuted);
        keptSinceExecuted = 0;
        release(bytes - kept);
    }

    /**
     * Called while a request executes that leaves {@code bytes} of it held by the connection after it (a command
     * queued in a transaction): they stay counted until {@link #let}.
     */
    public void kept(long bytes) {
        keptSinceExecuted += bytes;
    }

    /** Gives back bytes {@link #kept} earlier (the transaction ran or was discarded). */
    public void let(long bytes) {
        release(bytes);
    }

    /**
     * Called when the server stops reading the connection to catch up with its earlier requests: the request being
     * received is not charged the pause, which ends at {@link #resumedByServer}.
     */
    public void pausedByServer() {
        if (pausedAt < 0) {
            pausedAt = System.nanoTime();
        }
    }

    /** Called when the server reads the connection again after {@link #pausedByServer}. */
    public void resumedByServer() {
        if (pausedAt >= 0) {
            if (startedAt >= 0) {
                startedAt += System.nanoTime() - pausedAt;
            }
            pausedAt = -1;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release(held);
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        ctx.fireChannelInactive();
    }

    private void checkTimeout() {
        timer = null;
        if (refused || startedAt < 0 || !ctx.channel().isActive()) {
            return; // between requests: the next one schedules a check when it starts
        }
        long now = System.nanoTime();
        long due = (pausedAt >= 0 ? now : startedAt) + timeoutNanos;
        if (pausedAt < 0 && now - due >= 0) {
            refuse(
                    RequestRefusal.Reason.TIMEOUT,
                    "request timeout: a request must arrive whole within "
                            + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos)
                            + " seconds of its first byte (--request-timeout)");
            return;
        }
        timer = ctx.executor().schedule(this::checkTimeout, due - now, TimeUnit.NANOSECONDS);
    }

    private void release(long bytes) {
        if (bytes <= 0) {
            return;
        }
        long shared = beyondAllowance(held) - beyondAllowance(held - bytes);
        held -= bytes;
        if (shared > 0) {
            memory.give(shared);
        }
    }

    private static long beyondAllowance(long bytes) {
        return Math.max(0, bytes - RequestMemory.PER_CONNECTION_ALLOWANCE);
    }

    private void refuse(RequestRefusal.Reason reason, String message) {
        refused = true;
        refusals.accept(reason);
        ctx.channel().config().setAutoRead(false);
        ctx.fireUserEventTriggered(new RequestRefusal(reason, message));
    }
}
