package dev.deja.background;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60) // a run that never ends, or a stop that never returns, would otherwise hang the build
class SerialWorkTest {

    private final ScheduledThreadPoolExecutor threads = new ScheduledThreadPoolExecutor(4);

    SerialWorkTest() {
        threads.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void wakingWhileARunIsInProgressRunsItOnceMoreAfterItNeverAlongside() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch secondDone = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger inProgress = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        SerialWork work = new SerialWork("test", threads, () -> {
            mostAtOnce.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
            int run = runs.incrementAndGet();
            if (run == 1) {
                firstStarted.countDown();
                await(releaseFirst);
            } else {
                secondDone.countDown();
            }
            inProgress.decrementAndGet();
            return SerialWork.IDLE;
        });
        work.wake();
        firstStarted.await();
        for (int i = 0; i < 10; i++) {
            work.wake(); // every idle thread of the executor could take a run, if one were queued
        }
        releaseFirst.countDown();
        secondDone.await();
        assertThat(mostAtOnce).hasValue(1);
        afterQueuedTasks();
        afterQueuedTasks(); // and whatever the second run queued as it ended
        assertThat(runs)
                .as("the wakes during the first run make one more run, not ten")
                .hasValue(2);
    }

    @Test
    void aRunAsksForTheNextOneUntilItHasNothingLeft() throws Exception {
        CountDownLatch fiveRuns = new CountDownLatch(5);
        AtomicInteger runs = new AtomicInteger();
        SerialWork work = new SerialWork("test", threads, () -> {
            fiveRuns.countDown();
            return runs.incrementAndGet() < 5 ? 0 : SerialWork.IDLE;
        });
        work.wake();
        fiveRuns.await();
        afterQueuedTasks();
        assertThat(runs).hasValue(5);
    }

    @Test
    void aRunQueuedForLaterKeepsItsTimeWhenWokenAndStopCancelsIt() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        SerialWork work = new SerialWork("test", threads, () -> {
            runs.incrementAndGet();
            return SerialWork.IDLE;
        });
        work.start(TimeUnit.HOURS.toNanos(1));
        work.wake();
        afterQueuedTasks();
        assertThat(runs)
                .as("a retry waiting out its delay is not brought forward")
                .hasValue(0);
        work.stop();
        assertThat(threads.getQueue()).as("the delayed run is cancelled").isEmpty();
        work.wake();
        work.start(0);
        afterQueuedTasks();
        assertThat(runs).as("nothing runs once stopped").hasValue(0);
    }

    @Test
    void stopWaitsForTheRunInProgress() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        SerialWork work = new SerialWork("test", threads, () -> {
            started.countDown();
            await(release);
            finished.incrementAndGet();
            return 0; // would run again at once if not stopped
        });
        work.wake();
        started.await();
        Thread stopper = Thread.ofPlatform().start(work::stop);
        while (stopper.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        assertThat(stopper.isAlive()).isTrue();
        release.countDown();
        stopper.join();
        assertThat(finished).as("stop returned only once the run had ended").hasValue(1);
        afterQueuedTasks();
        assertThat(finished).as("and no run started after it").hasValue(1);
    }

    @Test
    void aRunThatThrowsRunsAgainWhenWoken() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch second = new CountDownLatch(1);
        SerialWork work = new SerialWork("test", threads, () -> {
            if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("a bug in the first run");
            }
            second.countDown();
            return SerialWork.IDLE;
        });
        work.wake();
        afterQueuedTasks();
        assertThat(runs).hasValue(1);
        work.wake();
        second.await();
    }

    /**
     * Waits until every task queued on the executor before now has run, by queueing one more on each thread: tasks
     * due at once start in the order queued.
     */
    private void afterQueuedTasks() throws Exception {
        CountDownLatch all = new CountDownLatch(threads.getCorePoolSize());
        CountDownLatch release = new CountDownLatch(1);
        for (int i = 0; i < threads.getCorePoolSize(); i++) {
            threads.execute(() -> {
                all.countDown();
                await(release); // hold the thread, so that each of these takes another one
            });
        }
        all.await();
        release.countDown();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
