package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Replies go out in request order, and requests piling up behind a pending (journaled) reply pause reading. */
class PipelinedHandlerTest {

    /**
     * Echoes each request; requests starting with "slow" get a future the test completes, ones starting with "admin"
     * are {@link PipelinedHandler.Offloaded} work that waits for {@link #release}.
     */
    private static final class Echo extends PipelinedHandler<String> {
        final List<CompletableFuture<Object>> slow = new ArrayList<>();
        /** Each request as executed, with whether the admin work was done by then. */
        final List<String> executed = new CopyOnWriteArrayList<>();

        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch adminStarted = new CountDownLatch(1);
        volatile Thread adminThread;
        volatile boolean adminDone;

        Echo() {
            super(new RequestGuard(
                    new RequestMemory(Long.MAX_VALUE), Long.MAX_VALUE, Long.MAX_VALUE, () -> false, 0, reason -> {}));
        }

        @Override
        protected String refused(RequestRefusal refusal) {
            return "refused: " + refusal.message();
        }

        @Override
        protected String request(ChannelHandlerContext ctx, Object message) {
            return (String) message;
        }

        @Override
        @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which the PipelinedHandler under test awaits
        protected Object execute(ChannelHandlerContext ctx, String request) {
            executed.add(request + (adminDone ? " after admin" : ""));
            if (request.startsWith("admin")) {
                return new Offloaded(() -> {
                    adminThread = Thread.currentThread();
                    adminStarted.countDown();
                    awaitQuietly(release);
                    adminDone = true;
                    return request + " done";
                });
            }
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
        assertThat(channel.config().isAutoRead())
                .as("one waiting batch does not pause reading")
                .isTrue();

        List<String> later = new ArrayList<>();
        for (int i = 0; i < PipelinedHandler.PAUSE_AT; i++) {
            later.add("later-" + i);
        }
        channel.writeInbound(later.toArray());
        assertThat(channel.<Object>readOutbound())
                .as("later requests wait for the executing batch")
                .isNull();
        assertThat(channel.config().isAutoRead())
                .as("reading pauses once requests pile up behind it")
                .isFalse();

        echo.slow.get(0).complete("slow reply");
        channel.runPendingTasks();
        List<Object> replies = written(channel);
        List<Object> expected = new ArrayList<>(List.of("a", "slow reply", "b"));
        expected.addAll(later);
        assertThat(replies).containsExactlyElementsOf(expected);
        assertThat(channel.config().isAutoRead()).isTrue();
        channel.finishAndReleaseAll();
    }

    /**
     * A request that may take seconds (a clear, a dump) runs off the event loop, which is free again as soon as the
     * batch is read, and the requests the client pipelined after it execute only once it is done, so they see its
     * effect; the replies keep their order.
     */
    @Test
    void offloadedWorkRunsOffTheLoopAndLaterRequestsWaitForIt() throws Exception {
        Echo echo = new Echo();
        EmbeddedChannel channel = new EmbeddedChannel(echo);
        channel.writeInbound("a", "admin-1", "b", "c"); // returns: the loop (this thread) is not held by the work
        assertThat(echo.adminStarted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(echo.adminThread).as("the work's thread").isNotSameAs(Thread.currentThread());
        assertThat(echo.executed).as("requests after the work wait for it").containsExactly("a", "admin-1");
        assertThat(channel.<Object>readOutbound())
                .as("no reply before the work's")
                .isNull();

        echo.release.countDown();
        List<Object> replies = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (replies.size() < 4 && System.nanoTime() < deadline) {
            channel.runPendingTasks(); // the reply is handed back to the loop
            replies.addAll(written(channel));
            Thread.sleep(1);
        }
        assertThat(replies).containsExactly("a", "admin-1 done", "b", "c");
        assertThat(echo.executed).containsExactly("a", "admin-1", "b after admin", "c after admin");
        channel.finishAndReleaseAll();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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

    @Test
    void aTurnWithSeveralPendingRepliesWaitsForAllOfThem() {
        Echo echo = new Echo();
        EmbeddedChannel channel = new EmbeddedChannel(echo);
        channel.writeInbound("slow-a", "x", "slow-b");
        echo.slow.get(1).complete("b done");
        channel.runPendingTasks();
        assertThat(channel.<Object>readOutbound())
                .as("the first reply is still pending")
                .isNull();

        echo.slow.get(0).completeExceptionally(new CompletionException(new IllegalStateException("no space")));
        channel.runPendingTasks();
        List<Object> replies = written(channel);
        assertThat(replies)
                .as("in request order, the wrapped error unwrapped")
                .containsExactly("failed: no space", "x", "b done");
        channel.finishAndReleaseAll();
    }

    @Test
    void repliesThatCompleteInRequestOrderAreAnsweredOnceTheLastIs() {
        Echo echo = new Echo();
        EmbeddedChannel channel = new EmbeddedChannel(echo);
        channel.writeInbound("slow-a", "slow-b", "slow-c");
        echo.slow.get(0).complete("a done");
        channel.runPendingTasks();
        echo.slow.get(1).complete("b done");
        channel.runPendingTasks();
        assertThat(channel.<Object>readOutbound())
                .as("the last reply is still pending")
                .isNull();

        echo.slow.get(2).complete("c done");
        channel.runPendingTasks();
        List<Object> replies = written(channel);
        assertThat(replies).containsExactly("a done", "b done", "c done");
        channel.finishAndReleaseAll();
    }

    /** The replies written so far, in order. */
    private static List<Object> written(EmbeddedChannel channel) {
        List<Object> replies = new ArrayList<>();
        for (Object reply = channel.readOutbound(); reply != null; reply = channel.readOutbound()) {
            replies.add(reply);
        }
        return replies;
    }
}
