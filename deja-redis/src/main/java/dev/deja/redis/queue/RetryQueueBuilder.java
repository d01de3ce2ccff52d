package dev.deja.redis.queue;

import dev.deja.checks.Require;
import dev.deja.redis.RedisStoreException;
import dev.deja.redis.node.Clients;
import dev.deja.redis.node.Node;
import dev.deja.seen.SeenSet;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.random.RandomGenerator;

/** Builds a {@link RetryQueue}: where it lives, its name, and how failed tasks come back. */
public final class RetryQueueBuilder {

    private RedisURI redis;
    private List<RedisURI> cluster;
    private String name;
    private Duration visibilityTimeout = Duration.ofMinutes(5);
    private Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(10));
    private int maxAttempts = 10;
    private Duration pollInterval = Duration.ofMillis(200);
    private Duration timeout = Duration.ofSeconds(5);
    private SeenSet seenSet;
    private RandomGenerator random = RandomGenerator.getDefault();
    private InstantSource clock = InstantSource.system();

    RetryQueueBuilder() {}

    /** A standalone Redis. */
    public RetryQueueBuilder redis(RedisURI uri) {
        this.redis = Require.nonNull("uri", uri);
        this.cluster = null;
        return this;
    }

    /** A Redis Cluster, reached through any of these nodes; the whole queue lives in the slot of its name. */
    public RetryQueueBuilder cluster(List<RedisURI> seeds) {
        this.cluster = List.copyOf(Require.nonNull("seeds", seeds));
        this.redis = null;
        return this;
    }

    /** The queue's name, the hash tag of its keys ({@code {name}:due}, ...). */
    public RetryQueueBuilder name(String name) {
        this.name = Require.nonNull("name", name);
        return this;
    }

    /** How long a claim lasts before the task is due again (default 5 minutes). */
    public RetryQueueBuilder visibilityTimeout(Duration timeout) {
        Require.positive(
                "visibilityTimeout in ms", Require.nonNull("timeout", timeout).toMillis());
        this.visibilityTimeout = timeout;
        return this;
    }

    /** The wait between attempts (default 1 s doubling up to 10 minutes). */
    public RetryQueueBuilder backoff(Backoff backoff) {
        this.backoff = Require.nonNull("backoff", backoff);
        return this;
    }

    /** Attempts a task gets before it becomes a dead letter (default 10). */
    public RetryQueueBuilder maxAttempts(int attempts) {
        this.maxAttempts = (int) Require.positive("maxAttempts", attempts);
        return this;
    }

    /** How often {@link RetryQueue#poll} and publishers ask Redis while no task is due (default 200 ms). */
    public RetryQueueBuilder pollInterval(Duration interval) {
        Require.positive(
                "pollInterval in ms", Require.nonNull("interval", interval).toMillis());
        this.pollInterval = interval;
        return this;
    }

    /** How long a Redis call may take before it fails (default 5 seconds). */
    public RetryQueueBuilder timeout(Duration timeout) {
        Require.positive("timeout in ms", Require.nonNull("timeout", timeout).toMillis());
        this.timeout = timeout;
        return this;
    }

    /** The seen-set in which a failed task's key is forgotten, so that its message delivered again is processed. */
    public RetryQueueBuilder forgetOnFailure(SeenSet seen) {
        this.seenSet = Require.nonNull("seen", seen);
        return this;
    }

    /** The source of the back-off's jitter (default the JDK's default generator). */
    public RetryQueueBuilder random(RandomGenerator random) {
        this.random = Require.nonNull("random", random);
        return this;
    }

    /** The clock of the failure history (default the system's). */
    public RetryQueueBuilder clock(InstantSource clock) {
        this.clock = Require.nonNull("clock", clock);
        return this;
    }

    /**
     * Connects and loads the scripts.
     *
     * @throws RedisStoreException naming the instance that cannot be reached
     */
    public RetryQueue build() {
        if (redis == null && cluster == null) {
            throw new IllegalArgumentException("a retry queue needs redis(uri) or cluster(seeds)");
        }
        QueueKeys keys = new QueueKeys(Require.nonNull("name", name));
        Clients clients = new Clients(timeout);
        try {
            Node node = redis != null ? clients.standalone(redis) : clients.cluster(cluster);
            RetryQueue queue = new RetryQueue(
                    clients,
                    node,
                    keys,
                    new QueueSettings(visibilityTimeout, backoff, maxAttempts, pollInterval, seenSet, random, clock));
            queue.preloadScripts();
            return queue;
        } catch (RuntimeException e) {
            clients.close();
            if (e instanceof RedisStoreException) {
                throw e;
            }
            throw new RedisStoreException(String.valueOf(redis != null ? redis : cluster), "cannot connect", e);
        }
    }
}
