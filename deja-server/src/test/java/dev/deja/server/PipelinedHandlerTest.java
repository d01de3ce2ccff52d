package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Replies of one read go out in request order, and a pending (journaled) reply pauses reading. */
class PipelinedHandlerTest {

    /** Echoes each request; requests starting with "slow" get a future the test completes. */
    private static final class Echo extends PipelinedHandler<String> {
        final List<CompletableFuture<Object>> slow = new ArrayList<>();

        @Override
        protected String request(ChannelHandlerContext ctx, Object message) {
            return (String) message;
        }

        @Override
        protected Object execute(ChannelHandlerContext ctx, String request) {
            if (request.startsWith("slow")) {
                CompletableFuture<Object> future = new CompletableFuture<>();
                slow.add(future);
                return future;
            }
            return request.equals("quit") ? new Closing("bye") : request;
        }

        @Override
        protected Object failure(Throwable cause) {
            return "failed: " + cause.getMessage();
        }
    }

    @Test
    void repliesKeepRequestOrderAndWaitForPendingOnes() {
        Echo echo = new Echo();
        EmbeddedChannel channel = new EmbeddedChannel(echo);
        channel.writeInbound("a", "slow-1", "b");
        Object early = channel.readOutbound();
        assertThat(early).as("nothing before the slow reply is ready").isNull();
        assertThat(channel.config().isAutoRead()).as("reading pauses while a reply is pending").isFalse();

        echo.slow.get(0).complete("slow reply");
        channel.runPendingTasks();
        assertThat(List.of(channel.readOutbound(), channel.readOutbound(), channel.readOutbound()))
                .containsExactly("a", "slow reply", "b");
        assertThat(channel.config().isAutoRead()).isTrue();
        channel.finishAndReleaseAll();
    }

    @Test
    void aFailedReplyBecomesAnErrorAndClosingStopsTheBatch() {
        Echo echo = new Echo();
        EmbeddedChannel channel = new EmbeddedChannel(echo);
        channel.writeInbound("slow-2", "quit", "never");
        echo.slow.get(0).completeExceptionally(new IllegalStateException("disk full"));
        channel.runPendingTasks();
        Object first = channel.readOutbound();
        Object second = channel.readOutbound();
        assertThat(List.of(first, second)).containsExactly("failed: disk full", "bye");
        channel.runPendingTasks();
        assertThat(channel.isOpen()).isFalse();
        channel.finishAndReleaseAll();
    }
}
