package dev.deja.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.exact.StoreReadException;
import dev.deja.journal.JournalWriteException;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceException;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.seen.SeenSet;
import dev.deja.seen.StoreClosedException;
import dev.deja.server.Failures;
import dev.deja.server.PipelinedHandler.Offloaded;
import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * deja's HTTP API: the seed's {@code /check}, {@code /add} and {@code /checkthenadd}, batches, the JSON admin
 * API for namespaces, {@code /info}, {@code /health} and {@code /metrics} (documented in docs/PROTOCOL.md).
 */
final class HttpApi {

    private static final Logger log = LoggerFactory.getLogger(HttpApi.class);
    static final String FRONT_END = "http";
    private static final String NAMESPACES = "/namespaces";

    /** The key operations, as the seed's paths and the batch {@code op} name them. */
    private enum KeyOp {
        CHECK, ADD, CHECKTHENADD, FORGET;

        private final String label = name().toLowerCase(Locale.ROOT); // once: it is needed per request

        String label() {
            return label;
        }

        static KeyOp parse(String text) {
            for (KeyOp op : values()) {
                if (op.label().equals(text)) {
                    return op;
                }
            }
            throw HttpProblem.badRequest("op must be one of check, add, checkthenadd, forget (got "
                    + (text == null ? "none" : "'" + text + "'") + ")");
        }
    }

    private final ServerContext context;
    private final NamespaceRegistry namespaces;
    private final ServerConfig config;
    private final BearerAuth auth;

    HttpApi(ServerContext context, BearerAuth auth) {
        this.context = context;
        this.namespaces = context.namespaces();
        this.config = context.config();
        this.auth = auth;
    }

    /**
     * The reply to one request, a future of it for writes waiting for the journal, or an {@link Offloaded} one for an
     * admin request that may take seconds (create, delete, clear, merge); never fails.
     */
    Object handle(HttpCall call) {
        try {
            HttpProblem unauthorized = auth.refusal(call.path(), call.authorization());
            if (unauthorized != null) {
                context.metrics().error(FRONT_END, "unauthorized");
                return unauthorized.reply();
            }
            Object reply = route(call);
            if (reply instanceof Offloaded offloaded) {
                return new Offloaded(() -> {
                    try {
                        return settled(call, offloaded.work().get());
                    } catch (RuntimeException e) {
                        return failure(call, e);
                    }
                });
            }
            return settled(call, reply);
        } catch (RuntimeException e) {
            return failure(call, e);
        }
    }

    /** A reply, or a future whose failure becomes an error reply. */
    private Object settled(HttpCall call, Object reply) {
        if (reply instanceof CompletableFuture<?> future) {
            return future.handle((value, error) -> error == null ? value : failure(call, Failures.cause(error)));
        }
        return reply;
    }

    private HttpReply failure(HttpCall call, Throwable error) {
        return switch (error) {
            case HttpProblem e -> {
                context.metrics().error(FRONT_END, e.status().reasonPhrase());
                yield e.reply();
            }
            case NamespaceException e -> failure(switch (e.problem()) {
                case UNKNOWN -> HttpResponseStatus.NOT_FOUND;
                case EXISTS -> HttpResponseStatus.CONFLICT;
                case NO_MEMORY, TOO_MANY -> HttpResponseStatus.INSUFFICIENT_STORAGE;
                case CLOSED -> HttpResponseStatus.SERVICE_UNAVAILABLE;
            }, e.getMessage(), e.problem().name());
            case IllegalArgumentException e -> failure(HttpResponseStatus.BAD_REQUEST, e.getMessage(), "Bad Request");
            case UnsupportedOperationException e -> failure(HttpResponseStatus.BAD_REQUEST, e.getMessage(),
                    "Bad Request");
            case JournalWriteException e -> failure(HttpResponseStatus.SERVICE_UNAVAILABLE, e.getMessage(), "journal");
            // a damaged table file: waiting does not help, the store must be restored from a copy
            case StoreReadException e -> failure(HttpResponseStatus.INTERNAL_SERVER_ERROR, e.getMessage(), "read");
            case UncheckedIOException e -> failure(HttpResponseStatus.SERVICE_UNAVAILABLE, e.getMessage(), "storage");
            case StoreClosedException e -> failure(HttpResponseStatus.SERVICE_UNAVAILABLE,
                    Namespace.closedMeanwhile(e), "closed");
            default -> {
                log.error("{} {} failed", call.method(), call.path(), error);
                yield failure(HttpResponseStatus.SERVICE_UNAVAILABLE, "cannot serve this request now: " + error,
                        "unavailable");
            }
        };
    }

    private HttpReply failure(HttpResponseStatus status, String message, String reason) {
        context.metrics().error(FRONT_END, reason);
        return HttpReply.error(status, message);
    }

    private Object route(HttpCall call) {
        if (call.malformedUri() != null) {
            throw HttpProblem.badRequest(call.malformedUri());
        }
        String path = call.path();
        switch (path) {
            case "/check", "/add", "/checkthenadd", "/forget" -> {
                if (path.equals("/check")) {
                    allow(call, HttpMethod.GET, HttpMethod.HEAD);
                } else {
                    allow(call, HttpMethod.GET); // writes: never on a HEAD, which proxies and crawlers take as safe
                }
                return single(call, KeyOp.parse(path.substring(1)));
            }
            case "/batch" -> {
                allow(call, HttpMethod.POST);
                return batch(call);
            }
            case NAMESPACES -> {
                allow(call, HttpMethod.GET, HttpMethod.HEAD);
                call.onlyParameters();
                ArrayNode list = HttpReply.JSON.createArrayNode();
                namespaces.list().forEach(n -> list.add(HttpReply.JSON.valueToTree(n.info().fields())));
                ObjectNode body = HttpReply.JSON.createObjectNode();
                body.set("namespaces", list);
                return HttpReply.json(HttpResponseStatus.OK, body);
            }
            case "/info" -> {
                allow(call, HttpMethod.GET, HttpMethod.HEAD);
                return HttpReply.json(HttpResponseStatus.OK, serverInfo());
            }
            case "/health" -> {
                allow(call, HttpMethod.GET, HttpMethod.HEAD);
                ObjectNode body = HttpReply.JSON.createObjectNode();
                body.put("status", "UP");
                return HttpReply.json(HttpResponseStatus.OK, body);
            }
            case "/metrics" -> {
                allow(call, HttpMethod.GET, HttpMethod.HEAD);
                return new HttpReply(HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8",
                        context.metrics().scrape().getBytes(StandardCharsets.UTF_8), Map.of());
            }
            default -> {
                if (path.startsWith(NAMESPACES + "/")) {
                    return namespaceRoute(call, path.substring(NAMESPACES.length() + 1).split("/", -1));
                }
                throw new HttpProblem(HttpResponseStatus.NOT_FOUND, "no endpoint at " + path
                        + " (see docs/PROTOCOL.md)");
            }
        }
    }

    private Object namespaceRoute(HttpCall call, String[] parts) {
        String name = Namespace.checkName(parts[0]);
        if (parts.length == 2 && parts[1].equals("merge")) {
            call.onlyParameters("from");
        } else {
            call.onlyParameters();
        }
        if (parts.length == 1) {
            allow(call, HttpMethod.GET, HttpMethod.HEAD, HttpMethod.PUT, HttpMethod.DELETE);
            if (call.method().equals(HttpMethod.GET) || call.method().equals(HttpMethod.HEAD)) {
                return namespaceInfo(HttpResponseStatus.OK, namespaces.get(name));
            }
            if (call.method().equals(HttpMethod.PUT)) {
                return new Offloaded(() -> create(name, call)); // allocates, may load: off the event loop
            }
            return new Offloaded(() -> {
                namespaces.delete(name);
                return done("deleted", name);
            });
        }
        if (parts.length == 2) {
            switch (parts[1]) {
                case "clear" -> {
                    allow(call, HttpMethod.POST);
                    return new Offloaded(() -> {
                        namespaces.clear(name);
                        context.snapshotInBackground(name);
                        return done("cleared", name);
                    });
                }
                case "snapshot" -> {
                    allow(call, HttpMethod.POST);
                    namespaces.get(name);
                    context.snapshotInBackground(name);
                    ObjectNode body = HttpReply.JSON.createObjectNode();
                    body.put("snapshot", "started");
                    body.put("namespace", name);
                    return HttpReply.json(HttpResponseStatus.ACCEPTED, body);
                }
                case "merge" -> {
                    allow(call, HttpMethod.POST);
                    String from = required(call, "from");
                    return new Offloaded(() -> {
                        namespaces.get(name).mergeFrom(namespaces.get(Namespace.checkName(from)));
                        return namespaceInfo(HttpResponseStatus.OK, namespaces.get(name));
                    });
                }
                default -> {
                }
            }
        }
        throw new HttpProblem(HttpResponseStatus.NOT_FOUND, "no endpoint at " + call.path()
                + " (namespace endpoints: /namespaces/{name}, /namespaces/{name}/clear, /snapshot, /merge)");
    }

    private HttpReply create(String name, HttpCall call) {
        String kind = config.defaultSpec().kind();
        Map<String, String> parameters = config.defaultSpec().parameters();
        if (call.body().length > 0) {
            JsonNode body = parseJson(call.body());
            onlyFields(body, "a namespace", "{\"kind\": \"bloom\", \"params\": {\"capacity\": \"1000000\"}}",
                    "kind", "params");
            if (body.hasNonNull("kind")) {
                kind = text(body, "kind");
                parameters = Map.of();
            }
            JsonNode given = body.get("params");
            if (given != null && !given.isNull()) {
                if (!given.isObject()) {
                    throw HttpProblem.badRequest("params must be a JSON object of name: value");
                }
                parameters = new HashMap<>();
                for (Map.Entry<String, JsonNode> field : given.properties()) {
                    if (!field.getValue().isValueNode() || field.getValue().isNull()) {
                        throw HttpProblem.badRequest("params." + field.getKey()
                                + " must be a string or a number (got " + field.getValue() + ")");
                    }
                    parameters.put(field.getKey(), field.getValue().asText());
                }
            }
        }
        return namespaceInfo(HttpResponseStatus.CREATED, namespaces.create(name, kind, parameters));
    }

    // ---- the seed's single-key endpoints ----

    private Object single(HttpCall call, KeyOp op) {
        call.onlyParameters("e", "ns", "owner");
        required(call, "e");
        byte[] key = key(call.parameterBytes("e"));
        String name = call.parameter("ns") == null ? NamespaceRegistry.DEFAULT : call.parameter("ns");
        long owner = owner(call.parameter("owner"));
        context.metrics().operations(FRONT_END, op.label(), 1);
        if (op == KeyOp.CHECK) {
            SeenSet store = namespaces.storeWithoutCreating(name);
            return HttpReply.text(store != null && store.check(key) ? "PRESENT\n" : "MISSING\n");
        }
        long[] owners = owner == SeenSet.NO_OWNER ? null : new long[] {owner};
        return execute(op, name, List.of(key), owners).thenApply(results -> HttpReply.text(results[0] + "\n"));
    }


    // ---- batches ----

    private Object batch(HttpCall call) {
        call.onlyParameters("op", "ns", "owner");
        boolean json = isJson(call.contentType());
        String opName = call.parameter("op");
        String name = call.parameter("ns");
        List<byte[]> keys;
        long[] owners = null;
        if (json) {
            JsonNode body = parseJson(call.body());
            if (!body.isObject() || !body.path("keys").isArray()) {
                throw HttpProblem.badRequest("a JSON batch must be an object with a \"keys\" array of strings");
            }
            onlyFields(body, "a JSON batch", "{\"keys\": [\"a\", \"b\"], \"op\": \"checkthenadd\"}",
                    "keys", "op", "ns", "owners");
            opName = fromBodyOrQuery(body, "op", opName);
            name = fromBodyOrQuery(body, "ns", name);
            keys = jsonKeys(body.get("keys"));
            owners = jsonOwners(body.get("owners"), keys.size());
            if (owners != null && call.parameter("owner") != null) {
                throw HttpProblem.badRequest("give owners in the body or owner in the query, not both");
            }
        } else {
            keys = lineKeys(call.body());
        }
        KeyOp op = KeyOp.parse(opName);
        if (owners == null && call.parameter("owner") != null) {
            owners = new long[keys.size()];
            Arrays.fill(owners, owner(call.parameter("owner")));
        }
        name = name == null ? NamespaceRegistry.DEFAULT : name;
        context.metrics().operations(FRONT_END, "batch_" + op.label(), keys.size());
        return execute(op, name, keys, owners).thenApply(results -> json ? jsonResults(results)
                : letterResults(results));
    }

    private static HttpReply jsonResults(String[] results) {
        ObjectNode body = HttpReply.JSON.createObjectNode();
        ArrayNode list = body.putArray("results");
        for (String result : results) {
            list.add(result);
        }
        return HttpReply.json(HttpResponseStatus.OK, body);
    }

    private static HttpReply letterResults(String[] results) {
        StringBuilder letters = new StringBuilder(results.length + 1);
        for (String result : results) {
            letters.append(result.charAt(0));
        }
        return HttpReply.text(letters.append('\n').toString());
    }

    /** Runs a key operation; writes complete when the journal has them. Results use the seed's words. */
    private CompletableFuture<String[]> execute(KeyOp op, String name, List<byte[]> keys, long[] owners) {
        return switch (op) {
            case CHECK -> {
                SeenSet store = namespaces.storeWithoutCreating(name);
                boolean[] held = store == null ? new boolean[keys.size()] : store.checkAll(keys);
                String[] results = new String[held.length];
                for (int i = 0; i < held.length; i++) {
                    results[i] = held[i] ? "PRESENT" : "MISSING";
                }
                yield CompletableFuture.completedFuture(results);
            }
            case ADD -> namespaces.getOrCreate(name).checkThenAdd(keys, owners).thenApply(verdicts -> {
                String[] results = new String[verdicts.length];
                Arrays.fill(results, "ADDED");
                return results;
            });
            case CHECKTHENADD -> namespaces.getOrCreate(name).checkThenAdd(keys, owners).thenApply(verdicts -> {
                String[] results = new String[verdicts.length];
                for (int i = 0; i < verdicts.length; i++) {
                    results[i] = switch (verdicts[i]) {
                        case NEW -> "MISSING";
                        case DUPLICATE -> "PRESENT";
                        case RETRY -> "RETRY";
                    };
                }
                return results;
            });
            case FORGET -> namespaces.forgetWithoutCreating(name, keys, owners).thenApply(forgotten -> {
                String[] results = new String[forgotten.length];
                for (int i = 0; i < forgotten.length; i++) {
                    results[i] = forgotten[i] ? "FORGOTTEN" : "MISSING";
                }
                return results;
            });
        };
    }

    private List<byte[]> lineKeys(byte[] body) {
        List<byte[]> keys = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= body.length; i++) {
            if (i == body.length || body[i] == '\n') {
                int end = i > start && body[i - 1] == '\r' ? i - 1 : i;
                if (i == body.length && start == body.length) {
                    break; // the body ends with a newline, or is empty
                }
                if (end == start) {
                    throw HttpProblem.badRequest("key on line " + (keys.size() + 1) + " is empty");
                }
                keys.add(checkKey(Arrays.copyOfRange(body, start, end), keys.size()));
                checkBatchSize(keys.size());
                start = i + 1;
            }
        }
        if (keys.isEmpty()) {
            throw HttpProblem.badRequest("a batch needs at least one key (one per line)");
        }
        return keys;
    }

    /** A batch setting from the JSON body or the query string; both would leave in doubt which one was meant. */
    private static String fromBodyOrQuery(JsonNode body, String field, String fromQuery) {
        if (!body.hasNonNull(field)) {
            return fromQuery;
        }
        if (fromQuery != null) {
            throw HttpProblem.badRequest("give " + field + " in the body or in the query, not both");
        }
        return text(body, field);
    }

    private List<byte[]> jsonKeys(JsonNode array) {
        checkBatchSize(array.size());
        if (array.isEmpty()) {
            throw HttpProblem.badRequest("a batch needs at least one key in \"keys\"");
        }
        List<byte[]> keys = new ArrayList<>(array.size());
        for (JsonNode key : array) {
            if (!key.isTextual() || key.asText().isEmpty()) {
                throw HttpProblem.badRequest("keys[" + keys.size() + "] must be a non-empty string (got " + key + ")");
            }
            if (!StandardCharsets.UTF_8.newEncoder().canEncode(key.asText())) {
                // a lone surrogate (U+D800 alone) has no UTF-8 form; encoding it as '?' would make such keys one key
                throw HttpProblem.badRequest("keys[" + keys.size() + "] is not valid Unicode: it holds an unpaired"
                        + " surrogate (send binary keys in the text form of /batch)");
            }
            keys.add(checkKey(key.asText().getBytes(StandardCharsets.UTF_8), keys.size()));
        }
        return keys;
    }

    private static long[] jsonOwners(JsonNode array, int count) {
        if (array == null || array.isNull()) {
            return null;
        }
        if (!array.isArray() || array.size() != count) {
            throw HttpProblem.badRequest("owners must be an array with one integer per key (" + count + ")");
        }
        long[] owners = new long[count];
        for (int i = 0; i < count; i++) {
            if (!array.get(i).canConvertToLong() || !array.get(i).isIntegralNumber()) {
                throw HttpProblem.badRequest("owners[" + i + "] must be a 64-bit integer (got " + array.get(i) + ")");
            }
            owners[i] = array.get(i).asLong();
        }
        return owners;
    }

    private void checkBatchSize(int keys) {
        if (keys > config.maxBatch()) {
            throw HttpProblem.tooLarge("a batch must hold at most " + config.maxBatch() + " keys");
        }
    }

    // ---- arguments ----

    private byte[] key(byte[] key) {
        if (key.length == 0) {
            throw HttpProblem.badRequest("parameter e must be a non-empty key");
        }
        return checkKey(key, -1);
    }

    private byte[] checkKey(byte[] key, int index) {
        if (key.length > config.maxKeyBytes()) {
            throw HttpProblem.tooLarge((index < 0 ? "key" : "key " + (index + 1)) + " must be at most "
                    + config.maxKeyBytes() + " bytes (got " + key.length + ")");
        }
        return key;
    }

    private static long owner(String text) {
        if (text == null) {
            return SeenSet.NO_OWNER;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw HttpProblem.badRequest("owner must be a 64-bit signed integer (got '" + text + "')");
        }
    }

    private static String required(HttpCall call, String name) {
        String value = call.parameter(name);
        if (value == null) {
            throw HttpProblem.badRequest("parameter " + name + " is required");
        }
        return value;
    }

    private static JsonNode parseJson(byte[] body) {
        try {
            return HttpReply.JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw HttpProblem.badRequest("body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw HttpProblem.badRequest("body cannot be read: " + e.getMessage());
        }
    }

    /**
     * Refuses a JSON body that is not an object or has a field the endpoint does not read, so that a misplaced or
     * misspelt field (say {@code capacity} outside {@code params}) is an error instead of a silent default.
     */
    private static void onlyFields(JsonNode body, String what, String example, String... known) {
        if (!body.isObject()) {
            throw HttpProblem.badRequest(what + " must be a JSON object, like " + example + " (got " + body + ")");
        }
        for (Map.Entry<String, JsonNode> entry : body.properties()) {
            String field = entry.getKey();
            if (!List.of(known).contains(field)) {
                throw HttpProblem.badRequest("unknown field '" + field + "' in " + what + " (known: "
                        + String.join(", ", known) + "; for example " + example + ")");
            }
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (!value.isTextual()) {
            throw HttpProblem.badRequest(field + " must be a JSON string (got " + value + ")");
        }
        return value.asText();
    }

    private static void allow(HttpCall call, HttpMethod... methods) {
        for (HttpMethod method : methods) {
            if (method.equals(call.method())) {
                return;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (HttpMethod method : methods) {
            allowed.append(allowed.isEmpty() ? "" : ", ").append(method.name());
        }
        throw HttpProblem.methodNotAllowed(call.method() + " is not allowed on " + call.path() + " (allowed: "
                + allowed + ")", allowed.toString());
    }

    /**
     * Whether a Content-Type names JSON: {@code application/json} or a {@code +json} type (RFC 6839), parameters
     * such as a charset aside. Only the media type counts: {@code application/jsonl} or {@code application/json-seq}
     * (a line or a record per document) are not one JSON document, and their bodies are read as text lines.
     */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        CharSequence mime = HttpUtil.getMimeType(contentType);
        String type = (mime != null ? mime.toString() : contentType).strip().toLowerCase(Locale.ROOT);
        return type.equals("application/json") || type.startsWith("application/") && type.endsWith("+json");
    }

    private HttpReply namespaceInfo(HttpResponseStatus status, Namespace namespace) {
        return HttpReply.json(status, HttpReply.JSON.valueToTree(namespace.info().fields()));
    }

    private static HttpReply done(String what, String name) {
        ObjectNode body = HttpReply.JSON.createObjectNode();
        body.put(what, name);
        return HttpReply.json(HttpResponseStatus.OK, body);
    }

    private JsonNode serverInfo() {
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
        body.set("defaultParameters", HttpReply.JSON.valueToTree(config.defaultSpec().parameters()));
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
