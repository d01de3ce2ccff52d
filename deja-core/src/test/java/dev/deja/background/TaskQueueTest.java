package dev.deja.background;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class TaskQueueTest {

    private final ScheduledThreadPoolExecutor threads = new ScheduledThreadPoolExecutor(4);

    TaskQueueTest() {
        threads.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void tasksRunInTheOrderGivenOneAtATimeOnSharedThreads() {
        TaskQueue queue = new TaskQueue("test", threads);
        List<Integer> order = new ArrayList<>(); // not thread-safe: tasks run one at a time, each seeing the last
        AtomicInteger inProgress = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<CompletableFuture<Integer>> done = IntStream.range(0, 1000)
                .mapToObj(i -> queue.submit(() -> {
                    mostAtOnce.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
                    order.add(i);
                    inProgress.decrementAndGet();
                    return i;
                }))
                .toList();
        assertThat(done.getLast().join()).isEqualTo(999);
        assertThat(order)
                .containsExactlyElementsOf(IntStream.range(0, 1000).boxed().toList());
        assertThat(mostAtOnce).hasValue(1);
        queue.close();
    }

    @Test
    void closeRunsWhatNoSharedThreadHasTakenOnTheClosingThreadAndRefusesMore() throws Exception {
        ScheduledThreadPoolExecutor one = new ScheduledThreadPoolExecutor(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            one.execute(() -> await(release)); // another owner's long task holds the only thread
            TaskQueue queue = new TaskQueue("test", one);
            CompletableFuture<Thread> ranOn = queue.submit(Thread::currentThread);
            queue.close();
            assertThat(ranOn).isCompletedWithValue(Thread.currentThread());
            assertThatThrownBy(() -> queue.submit(() -> 1)).isInstanceOf(RejectedExecutionException.class);
        } finally {
            release.countDown();
            one.shutdownNow();
        }
    }

    @Test
    void aFailingTaskIsLoggedAndTheNextOnesRun() {
        TaskQueue queue = new TaskQueue("test", threads);
        queue.execute(() -> {
            throw new IllegalStateException("a bug in one task");
        });
        assertThat(queue.submit(() -> "after").join()).isEqualTo("after");
        queue.close();
    }

    @Test
    void aRepeatedTaskRunsAtItsIntervalAndIsDroppedAtCloseWhileWaitingItsTurnHoweverOftenItWasDue() throws Exception {
        TaskQueue queue = new TaskQueue("test", threads);
        CountDownLatch threeRuns = new CountDownLatch(3);
        AtomicInteger runs = new AtomicInteger();
        queue.repeat(Duration.ofMillis(1), () -> {
            runs.incrementAndGet();
            threeRuns.countDown();
        });
        threeRuns.await();

        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        queue.execute(() -> {
            blocking.countDown();
            await(release);
        });
        blocking.await();
        int before = runs.get();
        long ticks = threads.getCompletedTaskCount();
        while (threads.getCompletedTaskCount() < ticks + 20) { // the timer comes due again and again meanwhile
            Thread.sleep(1);
        }
        Thread closer = Thread.ofPlatform().start(queue::close);
        while (closer.getState() != Thread.State.TIMED_WAITING) { // waiting for the blocking task
            Thread.sleep(1);
        }
        release.countDown();
        closer.join();
        assertThat(runs)
                .as("no copy piled up behind the blocking task, and the one waiting was dropped")
                .hasValue(before);
        assertThat(threads.getQueue()).as("the timer is stopped").isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
