package dev.deja.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.namespace.DamagedNamespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The server's own endpoints: {@code /info}, {@code /health} and {@code /metrics} (Prometheus). */
final class ServerEndpoints {

    private final ServerContext context;

    ServerEndpoints(ServerContext context) {
        this.context = context;
    }

    /** {@code GET /info}: version, uptime, kinds, defaults, limits and the namespaces' memory. */
    HttpResult info(HttpCall call) {
        call.allow(HttpMethod.GET, HttpMethod.HEAD);
        return HttpResult.now(HttpReply.json(HttpResponseStatus.OK, serverInfo()));
    }

    /**
     * {@code GET /health}: up, with no authentication, for load balancers; {@code DEGRADED}, still 200, with the
     * names of the namespaces not served because they could not be opened (the others are served).
     */
    HttpResult health(HttpCall call) {
        call.allow(HttpMethod.GET, HttpMethod.HEAD);
        ObjectNode body = HttpReply.JSON.createObjectNode();
        List<DamagedNamespace> damaged = context.namespaces().damaged();
        body.put("status", damaged.isEmpty() ? "UP" : "DEGRADED");
        if (!damaged.isEmpty()) {
            ArrayNode names = body.putArray("damagedNamespaces");
            damaged.forEach(d -> names.add(d.name()));
        }
        return HttpResult.now(HttpReply.json(HttpResponseStatus.OK, body));
    }

    /** {@code GET /metrics}: every metric in the Prometheus text format. */
    HttpResult metrics(HttpCall call) {
        call.allow(HttpMethod.GET, HttpMethod.HEAD);
        return HttpResult.now(new HttpReply(
                HttpResponseStatus.OK,
                "text/plain; version=0.0.4; charset=utf-8",
                context.metrics().scrape().getBytes(StandardCharsets.UTF_8),
                Map.of()));
    }

    private JsonNode serverInfo() {
        ServerConfig config = context.config();
        NamespaceRegistry namespaces = context.namespaces();
        ObjectNode body = HttpReply.JSON.createObjectNode();
        body.put("server", "deja");
        body.put("version", ServerContext.VERSION);
        body.put("uptimeSeconds", context.uptime().toSeconds());
        body.put("namespaces", namespaces.list().size());
        ArrayNode kinds = body.putArray("kinds");
        namespaces.kinds().names().forEach(kinds::add);
        body.put("fsync", config.fsync().name().toLowerCase(Locale.ROOT));
        body.put("autoCreate", config.autoCreate());
        body.put("defaultKind", config.defaultSpec().kind());
        body.set(
                "defaultParameters",
                HttpReply.JSON.valueToTree(config.defaultSpec().parameters()));
        ObjectNode memory = body.putObject("namespaceMemory");
        memory.put("limitBytes", namespaces.memoryLimit());
        memory.put("reservedBytes", namespaces.memoryReserved());
        memory.put("nativeLimitBytes", namespaces.nativeMemoryLimit());
        memory.put("nativeReservedBytes", namespaces.nativeMemoryReserved());
        ObjectNode limits = body.putObject("limits");
        limits.put("maxKeyBytes", config.maxKeyBytes());
        limits.put("maxBodyBytes", config.maxBodyBytes());
        limits.put("maxBatch", config.maxBatch());
        limits.put("maxHttpConnections", config.maxHttpConnections());
        limits.put("maxRespConnections", config.maxRespConnections());
        limits.put("idleTimeoutSeconds", config.idleTimeoutSeconds());
        limits.put("respIdleTimeoutSeconds", config.respIdleTimeoutSeconds());
        limits.put("requestTimeoutSeconds", config.requestTimeoutSeconds());
        limits.put("maxRequestBytes", config.maxRequestBytes());
        limits.put("requestMemoryBytes", context.requestMemory().limit());
        limits.put("requestMemoryHeldBytes", context.requestMemory().held());
        return body;
    }
}
