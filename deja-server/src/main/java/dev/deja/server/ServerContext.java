package dev.deja.server;

import dev.deja.metrics.ServerMetrics;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.seen.StoreClosedException;
import dev.deja.status.StatusSampler;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the front ends share: the configuration, the namespaces and the metrics. */
public final class ServerContext {

    /** deja's version, reported by HTTP {@code /info} and RESP {@code INFO} ({@code deja_version}). */
    public static final String VERSION = "0.1.0";
    /**
     * The Redis version whose commands and replies the RESP front end follows, reported where Redis reports its
     * own, {@code INFO}'s {@code redis_version} and {@code HELLO}'s {@code version}: clients read those fields to
     * decide which commands they may send, and must read the same number from both.
     */
    public static final String REDIS_VERSION = "7.2.0";

    private static final Logger log = LoggerFactory.getLogger(ServerContext.class);

    private final ServerConfig config;
    private final NamespaceRegistry namespaces;
    private final ServerMetrics metrics;
    private final RequestMemory requestMemory;
    private final StatusSampler status;
    private final Instant started = Instant.now();

    ServerContext(
            ServerConfig config,
            NamespaceRegistry namespaces,
            ServerMetrics metrics,
            RequestMemory requestMemory,
            StatusSampler status) {
        this.config = config;
        this.namespaces = namespaces;
        this.metrics = metrics;
        this.requestMemory = requestMemory;
        this.status = status;
    }

    public ServerConfig config() {
        return config;
    }

    public NamespaceRegistry namespaces() {
        return namespaces;
    }

    public ServerMetrics metrics() {
        return metrics;
    }

    /** The operations history of the namespaces and the data dir's disk use, for the status page. */
    public StatusSampler status() {
        return status;
    }

    /** The memory the connections' requests may hold together. */
    public RequestMemory requestMemory() {
        return requestMemory;
    }

    /**
     * A new connection's {@link RequestGuard}, with the configured limits; while {@code smallRequestsOnly} answers
     * true its request may hold at most {@link RequestMemory#PER_CONNECTION_ALLOWANCE}. Its refusals are counted as
     * errors of {@code frontEnd}.
     */
    public RequestGuard requestGuard(String frontEnd, BooleanSupplier smallRequestsOnly) {
        return new RequestGuard(
                requestMemory,
                config.maxRequestBytes(),
                RequestMemory.PER_CONNECTION_ALLOWANCE,
                smallRequestsOnly,
                TimeUnit.SECONDS.toNanos(config.requestTimeoutSeconds()),
                reason -> metrics.error(frontEnd, reason.name().toLowerCase(Locale.ROOT)));
    }

    /** Time since the server started. */
    public Duration uptime() {
        return Duration.between(started, Instant.now());
    }

    /**
     * Snapshots one namespace, or every one when {@code name} is null, in the background so requests keep being
     * served; a failure is logged.
     */
    public void snapshotInBackground(String name) {
        (name == null ? namespaces.snapshotAll() : namespaces.snapshot(name)).exceptionally(error -> {
            if (Failures.cause(error) instanceof StoreClosedException) {
                // the namespace was cleared, replaced or deleted meanwhile: nothing of it is left to snapshot
                log.info(
                        "snapshot of {} not written: {}",
                        name == null ? "a namespace" : "namespace '" + name + "'",
                        error.getMessage());
            } else {
                log.error("snapshot of {} failed", name == null ? "the namespaces" : "namespace '" + name + "'", error);
            }
            return null;
        });
    }

    /**
     * Adds every key of {@code source} to {@code target} ({@link Namespace#mergeFrom}). The union is served once this
     * returns; the snapshot that makes it durable is written in the background, and a failure of it is logged, since
     * until a snapshot succeeds the merge is only in memory.
     */
    public void merge(Namespace target, Namespace source) {
        target.mergeFrom(source).exceptionally(error -> {
            if (Failures.cause(error) instanceof StoreClosedException) {
                // the namespace was cleared, replaced or deleted meanwhile: the merge went with it
                log.info(
                        "snapshot after the merge into namespace '{}' not written: {}",
                        target.name(),
                        error.getMessage());
            } else {
                log.error(
                        "snapshot after the merge into namespace '{}' failed; the merge is only in memory until a"
                                + " snapshot succeeds",
                        target.name(),
                        error);
            }
            return null;
        });
    }
}
