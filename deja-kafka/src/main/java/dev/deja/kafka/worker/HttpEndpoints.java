package dev.deja.kafka.worker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code /metrics} (Prometheus text) and {@code /health} (200 while the application runs or rebalances, 503
 * otherwise) over HTTP, on the JDK's small HTTP server: two read-only endpoints need no more.
 */
final class HttpEndpoints implements AutoCloseable {

    private final HttpServer server;

    private HttpEndpoints(HttpServer server) {
        this.server = server;
    }

    static HttpEndpoints start(
            InetSocketAddress address,
            PrometheusMeterRegistry registry,
            BooleanSupplier healthy,
            Supplier<String> state)
            throws IOException {
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/metrics", exchange -> reply(exchange, 200, registry.scrape()));
        server.createContext("/health", exchange -> {
            boolean ok = healthy.getAsBoolean();
            reply(exchange, ok ? 200 : 503, state.get() + "\n");
        });
        server.start();
        return new HttpEndpoints(server);
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
