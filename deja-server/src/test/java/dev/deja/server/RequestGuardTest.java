package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What a connection's requests may hold, and for how long one may take to arrive. */
class RequestGuardTest {

    private static final int ALLOWANCE = RequestMemory.PER_CONNECTION_ALLOWANCE;

    /** Keeps what passes the guard: the bytes' sizes and the refusals. */
    private static final class Sink extends ChannelInboundHandlerAdapter {
        final List<Integer> reads = new ArrayList<>();
        final List<RequestRefusal> refusals = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            reads.add(((ByteBuf) message).readableBytes());
            ((ByteBuf) message).release();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            refusals.add((RequestRefusal) event);
        }
    }

    private static RequestGuard guard(RequestMemory memory, long maxRequest, boolean smallOnly, long timeoutMillis) {
        return new RequestGuard(
                memory,
                maxRequest,
                ALLOWANCE,
                () -> smallOnly,
                TimeUnit.MILLISECONDS.toNanos(timeoutMillis),
                reason -> {});
    }

    private static ByteBuf bytes(int n) {
        return Unpooled.wrappedBuffer(new byte[n]);
    }

    @Test
    void bytesBeyondTheAllowanceComeFromTheRequestMemoryUntilTheRequestHasExecuted() {
        RequestMemory memory = new RequestMemory(1 << 20);
        RequestGuard guard = guard(memory, 1 << 20, /* smallOnly= */ false, 0);
        Sink sink = new Sink();
        EmbeddedChannel channel = new EmbeddedChannel(guard, sink);
        channel.writeInbound(bytes(ALLOWANCE / 2));
        assertThat(memory.held()).as("within the connection's allowance").isZero();
        channel.writeInbound(bytes(100_000));
        assertThat(memory.held()).isEqualTo(ALLOWANCE / 2 + 100_000 - ALLOWANCE);
        long request = guard.completed();
        assertThat(request).isEqualTo(ALLOWANCE / 2 + 100_000);
        assertThat(memory.held())
                .as("taken whole, not executed yet: still held")
                .isPositive();
        guard.executed(request);
        assertThat(memory.held()).isZero();
        assertThat(sink.reads).containsExactly(ALLOWANCE / 2, 100_000);
    }

    @Test
    void aClosedConnectionGivesBackWhatItHeld() {
        RequestMemory memory = new RequestMemory(1 << 20);
        EmbeddedChannel channel = new EmbeddedChannel(guard(memory, 1 << 20, /* smallOnly= */ false, 0), new Sink());
        channel.writeInbound(bytes(300_000));
        assertThat(memory.held()).isEqualTo(300_000 - ALLOWANCE);
        channel.close().syncUninterruptibly();
        assertThat(memory.held()).isZero();
    }

    @Test
    void aRequestOverTheConnectionsLimitIsRefusedAndItsConnectionNoLongerRead() {
        RequestMemory memory = new RequestMemory(1 << 20);
        Sink sink = new Sink();
        EmbeddedChannel channel = new EmbeddedChannel(guard(memory, 200_000, /* smallOnly= */ false, 0), sink);
        channel.writeInbound(bytes(150_000));
        channel.writeInbound(bytes(60_000));
        assertThat(sink.refusals).extracting(RequestRefusal::reason).containsExactly(RequestRefusal.Reason.TOO_LARGE);
        assertThat(sink.refusals.getFirst().message()).contains("at most 200000 bytes");
        assertThat(channel.config().isAutoRead()).isFalse();
        ByteBuf later = bytes(10);
        channel.writeInbound(later);
        assertThat(later.refCnt()).as("dropped").isZero();
        assertThat(sink.reads).containsExactly(150_000);
    }

    @Test
    void onlyTheConnectionWhoseBytesDoNotFitTheRequestMemoryIsRefused() {
        RequestMemory memory = new RequestMemory(100_000);
        Sink first = new Sink();
        Sink second = new Sink();
        EmbeddedChannel one = new EmbeddedChannel(guard(memory, 1 << 20, /* smallOnly= */ false, 0), first);
        EmbeddedChannel two = new EmbeddedChannel(guard(memory, 1 << 20, /* smallOnly= */ false, 0), second);
        one.writeInbound(bytes(ALLOWANCE + 80_000));
        two.writeInbound(bytes(ALLOWANCE + 30_000));
        assertThat(first.refusals).isEmpty();
        assertThat(second.refusals)
                .extracting(RequestRefusal::reason)
                .containsExactly(RequestRefusal.Reason.MEMORY_FULL);
        assertThat(memory.held()).as("the refused bytes were not taken").isEqualTo(80_000);
        one.writeInbound(bytes(10_000));
        assertThat(first.refusals).isEmpty();
        assertThat(memory.held()).isEqualTo(90_000);
    }

    @Test
    void aConnectionLimitedToSmallRequestsIsRefusedPastTheAllowance() {
        Sink sink = new Sink();
        EmbeddedChannel channel =
                new EmbeddedChannel(guard(new RequestMemory(1 << 20), 1 << 20, /* smallOnly= */ true, 0), sink);
        channel.writeInbound(bytes(ALLOWANCE + 1));
        assertThat(sink.refusals).singleElement().satisfies(refusal -> {
            assertThat(refusal.reason()).isEqualTo(RequestRefusal.Reason.TOO_LARGE);
            assertThat(refusal.message()).contains("before authentication");
        });
    }

    @Test
    void aRequestThatTakesLongerThanTheTimeoutIsRefusedUnlessTheServerPausedIt() throws Exception {
        Sink sink = new Sink();
        RequestGuard guard = guard(new RequestMemory(1 << 20), 1 << 20, /* smallOnly= */ false, 100);
        EmbeddedChannel channel = new EmbeddedChannel(guard, sink);
        channel.writeInbound(bytes(1));
        guard.pausedByServer();
        TimeUnit.MILLISECONDS.sleep(300);
        channel.runScheduledPendingTasks();
        assertThat(sink.refusals)
                .as("the server was not reading: its pause is not the client's")
                .isEmpty();
        guard.resumedByServer();
        TimeUnit.MILLISECONDS.sleep(300);
        channel.runScheduledPendingTasks();
        assertThat(sink.refusals).extracting(RequestRefusal::reason).containsExactly(RequestRefusal.Reason.TIMEOUT);
    }

    @Test
    void eachRequestHasItsOwnTime() throws Exception {
        Sink sink = new Sink();
        RequestGuard guard = guard(new RequestMemory(1 << 20), 1 << 20, /* smallOnly= */ false, 200);
        EmbeddedChannel channel = new EmbeddedChannel(guard, sink);
        for (int i = 0; i < 4; i++) {
            channel.writeInbound(bytes(1));
            TimeUnit.MILLISECONDS.sleep(120);
            channel.runScheduledPendingTasks();
            guard.executed(guard.completed());
        }
        TimeUnit.MILLISECONDS.sleep(300);
        channel.runScheduledPendingTasks();
        assertThat(sink.refusals)
                .as("four requests of 120 ms each, and nothing since")
                .isEmpty();
    }
}
