package dev.deja.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.namespace.DamagedNamespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import dev.deja.status.Activity;
import dev.deja.status.DiskUsage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The server's own endpoints: {@code /info}, {@code /health}, {@code /metrics} (Prometheus) and {@code /activity}
 * (each namespace's operations per second over the last minutes).
 */
final class ServerEndpoints {

    private final ServerContext context;

    ServerEndpoints(ServerContext context) {
        this.context = context;
    }

    /** {@code GET /info}: version, uptime, kinds, defaults, limits, the namespaces' memory, the heap and the disk. */
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

    /**
     * {@code GET /activity}: for each namespace, its operations so far and per second in each sampling interval of
     * the last ten minutes, oldest first, as the status sampler gathered them.
     */
    HttpResult activity(HttpCall call) {
        call.allow(HttpMethod.GET, HttpMethod.HEAD);
        call.onlyParameters();
        Activity activity = context.status().activity();
        ObjectNode body = HttpReply.JSON.createObjectNode();
        body.put("intervalSeconds", activity.intervalMillis() / 1000.0);
        body.put("samples", Activity.SAMPLES);
        ObjectNode namespaces = body.putObject("namespaces");
        activity.histories().forEach((name, history) -> {
            ObjectNode one = namespaces.putObject(name);
            one.put("operations", history.operations());
            ArrayNode rates = one.putArray("perSecond");
            history.perSecond().forEach(rate -> rates.add(Math.round(rate * 100) / 100.0));
        });
        return HttpResult.now(HttpReply.json(HttpResponseStatus.OK, body));
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
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        ObjectNode heapNode = body.putObject("heap");
        heapNode.put("usedBytes", heap.getUsed());
        heapNode.put("committedBytes", heap.getCommitted());
        heapNode.put("maxBytes", heap.getMax());
        DiskUsage disk = context.status().disk();
        ObjectNode diskNode = body.putObject("disk");
        diskNode.put("dataDir", config.dataDir().toAbsolutePath().toString());
        diskNode.put("usedBytes", disk.usedBytes());
        diskNode.put("usableBytes", disk.usableBytes());
        diskNode.put("totalBytes", disk.totalBytes());
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
