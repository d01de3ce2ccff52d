package dev.deja.server;

import dev.deja.metrics.ServerMetrics;
import dev.deja.namespace.NamespaceRegistry;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the front ends share: the configuration, the namespaces, the metrics and the background worker. */
public final class ServerContext {

    /** The version reported by HTTP {@code /info}, RESP {@code INFO} and {@code HELLO}. */
    public static final String VERSION = "0.1.0";

    private static final Logger log = LoggerFactory.getLogger(ServerContext.class);

    private final ServerConfig config;
    private final NamespaceRegistry namespaces;
    private final ServerMetrics metrics;
    private final ExecutorService background;
    private final Instant started = Instant.now();

    ServerContext(ServerConfig config, NamespaceRegistry namespaces, ServerMetrics metrics,
                  ExecutorService background) {
        this.config = config;
        this.namespaces = namespaces;
        this.metrics = metrics;
        this.background = background;
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

    /** Time since the server started. */
    public Duration uptime() {
        return Duration.between(started, Instant.now());
    }

    /**
     * Snapshots one namespace, or every one when {@code name} is null, on the background worker so requests
     * keep being served; snapshots run one at a time.
     */
    public void snapshotInBackground(String name) {
        try {
            background.execute(() -> {
                try {
                    if (name == null) {
                        namespaces.snapshotAll();
                    } else {
                        namespaces.snapshot(name);
                    }
                } catch (IOException | RuntimeException e) {
                    log.error("snapshot of namespace '{}' failed", name, e);
                }
            });
        } catch (RejectedExecutionException e) {
            log.warn("snapshot of namespace '{}' not started: the server is stopping and snapshots everything", name);
        }
    }
}
