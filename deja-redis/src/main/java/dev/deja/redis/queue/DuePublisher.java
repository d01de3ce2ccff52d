package dev.deja.redis.queue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Flow.Publisher} of due tasks: a subscription claims tasks only against its subscriber's outstanding demand,
 * at most {@code maxBatch} a claim, and while none is due asks again every poll interval. Every signal of every
 * subscription runs on the queue's one publishing thread, so a subscriber's signals never overlap and the
 * subscription's state needs no lock.
 */
final class DuePublisher implements Flow.Publisher<ClaimedTask> {

    private final RetryQueue queue;
    private final ScheduledExecutorService thread;
    private final int maxBatch;
    private final Duration pollInterval;

    DuePublisher(RetryQueue queue, ScheduledExecutorService thread, int maxBatch, Duration pollInterval) {
        this.queue = queue;
        this.thread = thread;
        this.maxBatch = maxBatch;
        this.pollInterval = pollInterval;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ClaimedTask> subscriber) {
        if (subscriber == null) {
            throw new NullPointerException("subscriber"); // reactive-streams rule 1.9
        }
        Subscription s = new Subscription(subscriber);
        thread.execute(() -> subscriber.onSubscribe(s));
    }

    private final class Subscription implements Flow.Subscription {

        private final Flow.Subscriber<? super ClaimedTask> subscriber;
        // Touched only on the publishing thread.
        private long demand;
        private boolean pollScheduled;
        private boolean done;

        Subscription(Flow.Subscriber<? super ClaimedTask> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            thread.execute(() -> {
                if (done) {
                    return;
                }
                if (n <= 0) { // reactive-streams rule 3.9
                    done = true;
                    subscriber.onError(new IllegalArgumentException("request(" + n + "): demand must be positive"));
                    return;
                }
                demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                drain();
            });
        }

        @Override
        public void cancel() {
            thread.execute(() -> done = true);
        }

        private void drain() {
            while (!done && demand > 0) {
                List<ClaimedTask> claimed;
                try {
                    claimed = queue.claim((int) Math.min(demand, maxBatch));
                } catch (RuntimeException e) {
                    done = true;
                    subscriber.onError(e);
                    return;
                }
                if (claimed.isEmpty()) {
                    if (!pollScheduled) {
                        pollScheduled = true;
                        var unused = thread.schedule(this::poll, pollInterval.toNanos(), TimeUnit.NANOSECONDS);
                    }
                    return;
                }
                for (ClaimedTask task : claimed) {
                    demand--;
                    subscriber.onNext(task);
                }
            }
        }

        private void poll() {
            pollScheduled = false;
            drain();
        }
    }
}
