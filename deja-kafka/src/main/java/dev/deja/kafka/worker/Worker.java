package dev.deja.kafka.worker;

import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running worker: the Kafka Streams application, its metrics bound to a Prometheus registry (Micrometer's Kafka
 * Streams binder, which also carries the step's own counters), and the HTTP endpoints. Started only once the broker
 * has answered and the input topic is known to exist, so that a wrong address is one clear error, not a retry loop.
 */
final class Worker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaStreams streams;
    private KafkaStreamsMetrics binder;
    private final PrometheusMeterRegistry registry;
    private final HttpEndpoints http;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();

    private Worker(WorkerSettings settings) throws IOException {
        this.streams = new KafkaStreams(WorkerTopology.build(settings), WorkerTopology.properties(settings));
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        bindMetrics();
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("the application stops: {}", e.toString(), e);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                bindMetrics();
            }
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                ended.countDown();
            }
        });
        this.http = settings.httpPort() < 0
                ? null
                : HttpEndpoints.start(
                        new InetSocketAddress(settings.httpBind(), settings.httpPort()),
                        registry,
                        () -> streams.state().isRunningOrRebalancing(),
                        () -> streams.state().name());
    }

    /**
     * Checks that a broker answers at {@code --bootstrap} and that the input topic exists, then starts the worker.
     *
     * @throws WorkerException saying which, when either is not so
     */
    static Worker start(WorkerSettings settings) throws WorkerException {
        checkBroker(settings);
        Worker worker;
        try {
            worker = new Worker(settings);
        } catch (IOException e) {
            throw new WorkerException("cannot serve /metrics on "
                    + settings.httpBind().getHostAddress() + ":" + settings.httpPort() + ": " + e);
        }
        worker.streams.start();
        return worker;
    }

    /** The port of the HTTP endpoints, or -1 when there are none. */
    int httpPort() {
        return http == null ? -1 : http.port();
    }

    /** The application's state. */
    KafkaStreams.State state() {
        return streams.state();
    }

    /** What each of the application's stream threads runs now: its active and standby tasks. */
    Set<ThreadMetadata> threads() {
        return streams.metadataForLocalThreads();
    }

    /** Waits until the application stops by itself (an error) or is closed; true if it failed. */
    boolean awaitEnd() throws InterruptedException {
        ended.await();
        return streams.state() == KafkaStreams.State.ERROR;
    }

    /**
     * Stops the application (committing what it has processed), then the endpoints and the metrics; once. The worker
     * leaves the consumer group as it stops, so the others take its partitions over at once rather than after the
     * group's session timeout.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        streams.close(CloseOptions.timeout(CLOSE_TIMEOUT)
                .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        if (http != null) {
            http.close();
        }
        synchronized (this) {
            binder.close();
        }
        registry.close();
        ended.countDown();
    }

    /**
     * Binds Kafka Streams' metrics to the registry anew. Micrometer's binder looks for new Kafka metrics only once a
     * minute, and a task's metrics (the step's among them) appear when a rebalance assigns it: binding again each
     * time the application is running after a rebalance shows them at once.
     */
    private synchronized void bindMetrics() {
        if (binder != null) {
            binder.close();
        }
        binder = new KafkaStreamsMetrics(streams);
        binder.bindTo(registry);
    }

    private static void checkBroker(WorkerSettings s) throws WorkerException {
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, s.connectTimeout().toMillis());
        // the cluster's own settings (TLS, SASL) as Kafka Streams' admin client gets them; the timeouts are the check's
        Map<String, Object> config = s.kafka().adminSettings();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        try (Admin admin = Admin.create(config)) {
            admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS);
            try {
                admin.describeTopics(Set.of(s.input())).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    throw new WorkerException("the input topic '" + s.input() + "' does not exist on " + s.bootstrap());
                }
                throw e;
            }
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new WorkerException("no Kafka broker answered at " + s.bootstrap() + " within "
                    + s.connectTimeout().toSeconds() + " s (" + cause.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkerException("interrupted while connecting to " + s.bootstrap());
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new WorkerException("cannot connect to " + s.bootstrap() + ": " + e.getMessage());
        }
    }
}
