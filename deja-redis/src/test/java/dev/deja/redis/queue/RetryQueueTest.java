package dev.deja.redis.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.redis.RedisSeenSet;
import dev.deja.redis.testing.RedisServerExtension;
import dev.deja.seen.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The retry queue on one Redis server: claiming, delays, back-off to a dead letter, visibility timeouts, concurrent
 * workers, the publisher's demand, and forgetting a failed task's key in a seen set.
 */
class RetryQueueTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RetryQueueBuilder queue(String name) {
        return RetryQueue.builder()
                .redis(redis.uri())
                .name(name)
                .pollInterval(Duration.ofMillis(20))
                .random(new SplittableRandom(7));
    }

    @Test
    void tasksAreClaimedOnceAndCompleted() {
        try (RetryQueue q = queue("basic").build()) {
            assertThat(q.enqueue(Task.of("a", "{\"n\":1}"))).isTrue();
            assertThat(q.enqueue(Task.of("b", "{\"n\":2}"))).isTrue();
            assertThat(q.enqueue(Task.of("a", "again"))).as("one task per id").isFalse();
            List<ClaimedTask> claimed = q.claim(10);
            assertThat(claimed).extracting(c -> c.task().id()).containsExactlyInAnyOrder("a", "b");
            assertThat(claimed).extracting(ClaimedTask::attempts).containsOnly(0);
            assertThat(q.claim(10)).isEmpty();
            assertThat(q.counts()).isEqualTo(new RetryQueue.Counts(0, 2, 0));
            for (ClaimedTask c : claimed) {
                assertThat(q.complete(c)).isTrue();
                assertThat(q.complete(c)).isFalse();
            }
            assertThat(q.counts()).isEqualTo(new RetryQueue.Counts(0, 0, 0));
        }
    }

    @Test
    void aDelayedTaskIsDueOnlyAfterItsDelay() throws Exception {
        try (RetryQueue q = queue("delayed").build()) {
            q.enqueue(Task.of("later", "x"), Duration.ofMillis(300));
            assertThat(q.claim(1)).isEmpty();
            assertThat(q.counts().waiting()).isEqualTo(1);
            List<ClaimedTask> polled = q.poll(1, Duration.ofSeconds(10));
            assertThat(polled).extracting(c -> c.task().payload()).containsExactly("x");
        }
    }

    @Test
    void failuresBackOffThenBecomeADeadLetterThatCanBeRequeued() throws Exception {
        try (RetryQueue q = queue("backoff")
                .backoff(new Backoff(Duration.ofMillis(200), Duration.ofMillis(400)))
                .maxAttempts(3)
                .build()) {
            q.enqueue(Task.of("t", "p"));
            ClaimedTask c = q.claim(1).get(0);
            for (int attempt = 1; attempt < 3; attempt++) {
                assertThat(q.fail(c, "boom " + attempt)).isEqualTo(FailOutcome.RETRY_SCHEDULED);
                assertThat(q.claim(1))
                        .as("backing off after failure %d", attempt)
                        .isEmpty();
                c = q.poll(1, Duration.ofSeconds(10)).get(0);
                assertThat(c.attempts()).isEqualTo(attempt);
                assertThat(c.failures().get(attempt - 1).reason()).isEqualTo("boom " + attempt);
            }
            assertThat(q.fail(c, "boom 3")).isEqualTo(FailOutcome.DEAD_LETTERED);
            assertThat(q.counts()).isEqualTo(new RetryQueue.Counts(0, 0, 1));
            List<DeadLetter> dead = q.deadLetters(10);
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).task()).isEqualTo(Task.of("t", "p"));
            assertThat(dead.get(0).failures())
                    .extracting(Failure::reason)
                    .containsExactly("boom 1", "boom 2", "boom 3");

            assertThat(q.requeue("t")).isTrue();
            assertThat(q.requeue("t")).isFalse();
            ClaimedTask again = q.claim(1).get(0);
            assertThat(again.attempts()).isZero();
            assertThat(q.counts()).isEqualTo(new RetryQueue.Counts(0, 1, 0));
        }
    }

    @Test
    void aClaimNotFinishedWithinTheVisibilityTimeoutIsDueAgainAndLost() throws Exception {
        try (RetryQueue q =
                queue("visibility").visibilityTimeout(Duration.ofMillis(300)).build()) {
            q.enqueue(Task.of("v", "p"));
            ClaimedTask crashed = q.claim(1).get(0);
            assertThat(q.claim(1)).as("held by the first worker").isEmpty();
            ClaimedTask second = q.poll(1, Duration.ofSeconds(10)).get(0);
            assertThat(second.task().id()).isEqualTo("v");
            assertThat(q.complete(crashed))
                    .as("the expired claim no longer counts")
                    .isFalse();
            assertThat(q.fail(crashed, "late")).isEqualTo(FailOutcome.CLAIM_LOST);
            assertThat(q.complete(second)).isTrue();
            assertThat(q.counts()).isEqualTo(new RetryQueue.Counts(0, 0, 0));
        }
    }

    @Test
    void twoConcurrentWorkersNeverClaimTheSameTask() throws Exception {
        try (RetryQueue q = queue("workers").build()) {
            int tasks = 2000;
            for (int i = 0; i < tasks; i++) {
                q.enqueue(Task.of("task-" + i, "p"));
            }
            Set<String> all = ConcurrentHashMap.newKeySet();
            List<List<String>> perWorker = new ArrayList<>();
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                List<String> mine = new ArrayList<>();
                perWorker.add(mine);
                workers.add(CompletableFuture.runAsync(() -> {
                    for (List<ClaimedTask> claimed = q.claim(7); !claimed.isEmpty(); claimed = q.claim(7)) {
                        for (ClaimedTask c : claimed) {
                            mine.add(c.task().id());
                            assertThat(q.complete(c)).isTrue();
                        }
                    }
                }));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            perWorker.forEach(all::addAll);
            assertThat(perWorker.get(0).size() + perWorker.get(1).size()).isEqualTo(tasks);
            assertThat(all).hasSize(tasks);
            Set<String> both = new HashSet<>(perWorker.get(0));
            both.retainAll(perWorker.get(1));
            assertThat(both).isEmpty();
        }
    }

    @Test
    void thePublisherClaimsOnlyWhatItsSubscriberRequested() throws Exception {
        try (RetryQueue q = queue("publisher").build()) {
            for (int i = 0; i < 10; i++) {
                q.enqueue(Task.of("p-" + i, "p"));
            }
            List<ClaimedTask> received = new CopyOnWriteArrayList<>();
            CompletableFuture<Flow.Subscription> subscribed = new CompletableFuture<>();
            q.publisher(4).subscribe(new Flow.Subscriber<ClaimedTask>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                    subscribed.complete(s);
                }

                @Override
                public void onNext(ClaimedTask item) {
                    received.add(item);
                }

                @Override
                public void onError(Throwable t) {
                    subscribed.completeExceptionally(t);
                }

                @Override
                public void onComplete() {}
            });
            Flow.Subscription s = subscribed.get(10, TimeUnit.SECONDS);
            s.request(3);
            await(() -> received.size() == 3);
            Thread.sleep(100);
            assertThat(received).hasSize(3);
            assertThat(q.counts()).as("no more claimed than requested").isEqualTo(new RetryQueue.Counts(7, 3, 0));

            s.request(20);
            await(() -> received.size() == 10);
            q.enqueue(Task.of("late", "p"), Duration.ofMillis(100));
            await(() -> received.size() == 11);
            assertThat(received.get(10).task().id()).isEqualTo("late");
            s.cancel();
        }
    }

    @Test
    void failingATaskForgetsItsKeyInTheSeenSet() {
        try (RedisSeenSet seen = RedisSeenSet.builder()
                        .redis(redis.uri())
                        .prefix("queue-seen")
                        .window(Duration.ofMinutes(10))
                        .slices(4)
                        .build();
                RetryQueue q = queue("forget").forgetOnFailure(seen).build()) {
            assertThat(seen.checkThenAdd("msg-1", 11)).isEqualTo(Verdict.NEW);
            q.enqueue(Task.of("job-1", "p").withSeenKey("msg-1", 11));
            assertThat(q.fail(q.claim(1).get(0), "downstream down")).isEqualTo(FailOutcome.RETRY_SCHEDULED);
            assertThat(seen.check("msg-1")).isFalse();
            assertThat(seen.checkThenAdd("msg-1", 12))
                    .as("delivered again, under another offset")
                    .isEqualTo(Verdict.NEW);
        }
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }
}
