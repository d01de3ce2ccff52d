package dev.deja.redis.queue;

import dev.deja.checks.Require;
import dev.deja.redis.RedisStoreException;
import dev.deja.redis.node.Clients;
import dev.deja.redis.node.Node;
import dev.deja.redis.node.Script;
import dev.deja.seen.SeenSet;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A delayed queue of tasks in Redis, for work that failed and should be tried again later: Parth Patil's Redis job
 * queue, a sorted set scored by due time from which one Lua script claims the due tasks atomically, with what it
 * lacked: a failed task comes back after an exponential back-off with jitter ({@link Backoff}) until its last allowed
 * attempt, then goes to a dead-letter list with its failure history, from which it can be listed and requeued; and a
 * claimed task that is neither completed nor failed within the visibility timeout is due again, so a crashed worker
 * loses nothing. Each claim carries a token: once a claim has expired, its worker can no longer complete or fail the
 * task, so two workers never hold the same task at once.
 *
 * <p>Every time (due, visibility) is Redis's clock ({@code TIME} inside the scripts), so workers' clocks may differ.
 * A worker takes tasks with {@link #claim(int)}, {@link #poll(int, Duration)} (blocking) or a {@link #publisher(int)}
 * (a {@link Flow.Publisher} that claims only what its subscriber has requested). When built with a seen-set, failing a
 * task that names a seen-set key forgets that key under its owner first, so that the message, delivered again, is not
 * dropped as a duplicate (the "forget on failure" of the NSQ de-duplication design).
 */
public final class RetryQueue implements AutoCloseable {

    private static final Script ENQUEUE = script("enqueue.lua", ScriptOutputType.INTEGER);
    private static final Script CLAIM = script("claim.lua", ScriptOutputType.MULTI);
    private static final Script COMPLETE = script("complete.lua", ScriptOutputType.INTEGER);
    private static final Script FAIL = script("fail.lua", ScriptOutputType.INTEGER);
    private static final Script REQUEUE = script("requeue.lua", ScriptOutputType.INTEGER);
    private static final Script DEAD_LETTERS = script("dead-letters.lua", ScriptOutputType.MULTI);
    private static final Script COUNTS = script("counts.lua", ScriptOutputType.MULTI);

    /**
     * How many tasks are in each state.
     *
     * @param waiting tasks due now or later, not claimed
     * @param claimed tasks a worker holds
     * @param dead    dead letters
     */
    public record Counts(long waiting, long claimed, long dead) {}

    private final Clients clients;
    private final Node node;
    private final QueueKeys keys;
    private final QueueSettings settings;
    private ScheduledExecutorService publishing;

    RetryQueue(Clients clients, Node node, QueueKeys keys, QueueSettings settings) {
        this.clients = clients;
        this.node = node;
        this.keys = keys;
        this.settings = settings;
    }

    /** A builder; a Redis address and a queue name are required. */
    public static RetryQueueBuilder builder() {
        return new RetryQueueBuilder();
    }

    private static Script script(String name, ScriptOutputType output) {
        return Script.load(RetryQueue.class, name, output);
    }

    /** Loads every script on the node, so that calls find them by SHA1 from the first. */
    void preloadScripts() {
        for (Script s : List.of(ENQUEUE, CLAIM, COMPLETE, FAIL, REQUEUE, DEAD_LETTERS, COUNTS)) {
            try {
                s.preload(node).join();
            } catch (RuntimeException e) {
                throw new RedisStoreException(node.name(), "cannot load " + s.name(), e);
            }
        }
    }

    /** Queues a task due now; false if a task with its id is already waiting or claimed. */
    public boolean enqueue(Task task) {
        return enqueue(task, Duration.ZERO);
    }

    /** Queues a task due after {@code delay}; false if a task with its id is already waiting or claimed. */
    public boolean enqueue(Task task, Duration delay) {
        Require.nonNull("task", task);
        Require.inRange("delay in ms", Require.nonNull("delay", delay).toMillis(), 0, Long.MAX_VALUE);
        long added = (Long) call(
                ENQUEUE,
                new byte[][] {keys.due, keys.tasks},
                utf8(task.id()),
                TaskCodec.encode(task, List.of()),
                ascii(delay.toMillis()));
        return added == 1;
    }

    /** Claims up to {@code max} due tasks, oldest due first; an empty list when none is due. */
    public List<ClaimedTask> claim(int max) {
        Require.positive("max", max);
        String token = UUID.randomUUID().toString();
        List<?> stored = (List<?>) call(
                CLAIM,
                new byte[][] {keys.due, keys.claimed, keys.tasks, keys.claims},
                ascii(settings.visibilityTimeout().toMillis()),
                ascii(max),
                utf8(token));
        List<ClaimedTask> out = new ArrayList<>(stored.size());
        for (Object json : stored) {
            TaskCodec.Stored s = TaskCodec.decode((byte[]) json);
            out.add(new ClaimedTask(s.task(), s.failures(), token));
        }
        return out;
    }

    /**
     * Claims up to {@code max} due tasks, waiting up to {@code wait} for one to be due (asking Redis every poll
     * interval); an empty list if none was.
     */
    public List<ClaimedTask> poll(int max, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<ClaimedTask> claimed = claim(max);
            long left = deadline - System.nanoTime();
            if (!claimed.isEmpty() || left <= 0) {
                return claimed;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, settings.pollInterval().toNanos()));
        }
    }

    /** Removes a task done with; false if its claim had expired (the task is due again or someone else's). */
    public boolean complete(ClaimedTask claimed) {
        Task task = Require.nonNull("claimed", claimed).task();
        long done = (Long) call(
                COMPLETE, new byte[][] {keys.claimed, keys.tasks, keys.claims}, utf8(task.id()), utf8(claimed.claim()));
        return done == 1;
    }

    /**
     * Records a failed attempt: the task is due again after its back-off, or, after its last allowed attempt, a dead
     * letter. Its seen-set key, if it has one and the queue was built with a seen-set, is forgotten first.
     */
    public FailOutcome fail(ClaimedTask claimed, String reason) {
        Task task = Require.nonNull("claimed", claimed).task();
        SeenSet seen = settings.seenSet();
        if (seen != null && task.seenKey() != null) {
            seen.forget(task.seenKey(), task.owner());
        }
        List<Failure> failures = new ArrayList<>(claimed.failures());
        failures.add(new Failure(settings.clock().millis(), String.valueOf(reason)));
        long delay = failures.size() >= settings.maxAttempts()
                ? -1
                : settings.backoff().delayMillis(failures.size(), settings.random());
        long outcome = (Long) call(
                FAIL,
                new byte[][] {keys.due, keys.claimed, keys.tasks, keys.claims, keys.dead},
                utf8(task.id()),
                utf8(claimed.claim()),
                TaskCodec.encode(task, failures),
                ascii(delay));
        return outcome == 0
                ? FailOutcome.CLAIM_LOST
                : outcome == 1 ? FailOutcome.RETRY_SCHEDULED : FailOutcome.DEAD_LETTERED;
    }

    /** The first {@code max} dead letters, oldest first. */
    public List<DeadLetter> deadLetters(int max) {
        List<DeadLetter> out = new ArrayList<>();
        for (byte[] json : deadLetterJson(max)) {
            TaskCodec.Stored s = TaskCodec.decode(json);
            out.add(new DeadLetter(s.task(), s.failures()));
        }
        return out;
    }

    /**
     * Queues the dead letter of this task id again, due now, with a fresh count of attempts (its failure history is
     * dropped); false if there is no such dead letter or a task of that id is waiting or claimed.
     */
    public boolean requeue(String taskId) {
        Require.nonNull("taskId", taskId);
        for (byte[] json : deadLetterJson(Integer.MAX_VALUE)) {
            TaskCodec.Stored s = TaskCodec.decode(json);
            if (s.id().equals(taskId)) {
                long done = (Long) call(
                        REQUEUE,
                        new byte[][] {keys.due, keys.tasks, keys.dead},
                        json,
                        utf8(taskId),
                        TaskCodec.encode(s.task(), List.of()));
                return done == 1;
            }
        }
        return false;
    }

    private List<byte[]> deadLetterJson(int max) {
        Require.positive("max", max);
        List<?> stored = (List<?>) call(DEAD_LETTERS, new byte[][] {keys.dead}, ascii(max));
        return stored.stream().map(byte[].class::cast).toList();
    }

    /** How many tasks are waiting, claimed and dead. */
    public Counts counts() {
        List<?> counts = (List<?>) call(COUNTS, new byte[][] {keys.due, keys.claimed, keys.dead});
        return new Counts((Long) counts.get(0), (Long) counts.get(1), (Long) counts.get(2));
    }

    /**
     * Due tasks as a {@link Flow.Publisher}: each subscriber gets tasks only as it requests them, claimed in batches
     * of at most {@code maxBatch}, Redis asked again every poll interval while none is due. Signals run on one thread
     * of this queue; a subscriber must complete or fail each task within the visibility timeout.
     */
    public synchronized Flow.Publisher<ClaimedTask> publisher(int maxBatch) {
        Require.positive("maxBatch", maxBatch);
        if (publishing == null) {
            publishing = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "deja-retry-queue");
                t.setDaemon(true);
                return t;
            });
        }
        return new DuePublisher(this, publishing, maxBatch, settings.pollInterval());
    }

    private Object call(Script script, byte[][] scriptKeys, byte[]... args) {
        try {
            return script.run(node, scriptKeys, args).get(clients.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new RedisStoreException(
                    node.name(), script.name() + " failed: " + e.getCause().getMessage(), e);
        } catch (TimeoutException e) {
            throw new RedisStoreException(node.name(), script.name() + ": no reply in time", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisStoreException(node.name(), script.name() + " interrupted", e);
        } catch (RuntimeException e) { // the connection could not be opened
            throw new RedisStoreException(node.name(), script.name() + " failed: " + e.getMessage(), e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /** Stops the publishers' thread and closes the connection. */
    @Override
    public synchronized void close() {
        if (publishing != null) {
            publishing.shutdownNow();
        }
        clients.close();
    }
}
