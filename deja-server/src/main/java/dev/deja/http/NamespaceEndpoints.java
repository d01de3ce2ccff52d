package dev.deja.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.namespace.NamespaceSpec;
import dev.deja.namespace.ResetFrom;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The namespace admin API: {@code GET /namespaces}, and on {@code /namespaces/{name}} {@code GET} (info), {@code PUT}
 * (create, with an optional JSON body {@code {"kind": ..., "params": {...}}}), {@code DELETE}, and {@code POST} to
 * {@code /clear}, {@code /snapshot} and {@code /merge?from=other}. Creating, deleting, clearing and merging run off
 * the event loop: they may allocate, load or write a whole store.
 */
final class NamespaceEndpoints {

    /** The path of the namespace list; a namespace's own paths start with it and a slash. */
    static final String PATH = "/namespaces";

    private final ServerContext context;
    private final NamespaceRegistry namespaces;
    private final NamespaceSpec defaultSpec;

    NamespaceEndpoints(ServerContext context) {
        this.context = context;
        this.namespaces = context.namespaces();
        this.defaultSpec = context.config().defaultSpec();
    }

    /** {@code GET /namespaces}: every namespace's info, and the damaged ones not served, each with its reason. */
    HttpResult list(HttpCall call) {
        call.allow(HttpMethod.GET, HttpMethod.HEAD);
        call.onlyParameters();
        ArrayNode list = HttpReply.JSON.createArrayNode();
        namespaces
                .list()
                .forEach(n -> list.add(HttpReply.JSON.valueToTree(n.info().fields())));
        ObjectNode body = HttpReply.JSON.createObjectNode();
        body.set("namespaces", list);
        if (!namespaces.damaged().isEmpty()) {
            ArrayNode damaged = body.putArray("damaged");
            namespaces
                    .damaged()
                    .forEach(d -> damaged.addObject().put("name", d.name()).put("reason", d.reason()));
        }
        return HttpResult.now(HttpReply.json(HttpResponseStatus.OK, body));
    }

    /** A path below {@code /namespaces/}, split at its slashes: the name, then what is asked of it. */
    HttpResult route(HttpCall call, String[] parts) {
        String name = Namespace.checkName(parts[0]);
        if (parts.length == 2 && (parts[1].equals("merge") || parts[1].equals("reset"))) {
            call.onlyParameters("from");
        } else {
            call.onlyParameters();
        }
        if (parts.length == 1) {
            call.allow(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.PUT, HttpMethod.DELETE);
            if (call.method().equals(HttpMethod.GET) || call.method().equals(HttpMethod.HEAD)) {
                return HttpResult.now(info(HttpResponseStatus.OK, namespaces.get(name)));
            }
            if (call.method().equals(HttpMethod.PUT)) {
                return new HttpResult.OffLoop(() -> HttpResult.now(create(name, call)));
            }
            return new HttpResult.OffLoop(() -> {
                namespaces.delete(name);
                return HttpResult.now(done("deleted", name));
            });
        }
        if (parts.length == 2) {
            switch (parts[1]) {
                case "clear" -> {
                    call.allow(HttpMethod.POST);
                    return new HttpResult.OffLoop(() -> {
                        namespaces.clear(name);
                        context.snapshotInBackground(name);
                        return HttpResult.now(done("cleared", name));
                    });
                }
                case "snapshot" -> {
                    call.allow(HttpMethod.POST);
                    namespaces.get(name);
                    context.snapshotInBackground(name);
                    ObjectNode body = HttpReply.JSON.createObjectNode();
                    body.put("snapshot", "started");
                    body.put("namespace", name);
                    return HttpResult.now(HttpReply.json(HttpResponseStatus.ACCEPTED, body));
                }
                case "merge" -> {
                    call.allow(HttpMethod.POST);
                    String from = call.required("from");
                    return new HttpResult.OffLoop(() -> {
                        context.merge(namespaces.get(name), namespaces.get(Namespace.checkName(from)));
                        return HttpResult.now(info(HttpResponseStatus.OK, namespaces.get(name)));
                    });
                }
                case "reset" -> {
                    call.allow(HttpMethod.POST);
                    ResetFrom from = resetFrom(call.required("from"));
                    return new HttpResult.OffLoop(() -> {
                        try {
                            return HttpResult.now(info(HttpResponseStatus.OK, namespaces.reset(name, from)));
                        } catch (IOException e) {
                            throw new UncheckedIOException(
                                    "cannot reset namespace '" + name + "': " + e.getMessage(), e);
                        }
                    });
                }
                default -> {}
            }
        }
        throw new HttpProblem(
                HttpResponseStatus.NOT_FOUND,
                "no endpoint at " + call.path()
                        + " (namespace endpoints: /namespaces/{name}, /namespaces/{name}/clear,"
                        + " /snapshot, /merge, /reset)");
    }

    private static ResetFrom resetFrom(String text) {
        try {
            return ResetFrom.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw HttpProblem.badRequest("from must be readable or empty (got '" + text + "')");
        }
    }

    /** Creates the namespace with the body's kind and parameters, or the server's defaults when it has none. */
    private HttpReply create(String name, HttpCall call) {
        String kind = defaultSpec.kind();
        Map<String, String> parameters = defaultSpec.parameters();
        if (call.body().length > 0) {
            JsonNode body = JsonBodies.parse(call.body());
            JsonBodies.onlyFields(
                    body,
                    "a namespace",
                    "{\"kind\": \"bloom\", \"params\": {\"capacity\": \"1000000\"}}",
                    "kind",
                    "params");
            if (body.hasNonNull("kind")) {
                kind = JsonBodies.text(body, "kind");
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
                        throw HttpProblem.badRequest("params." + field.getKey() + " must be a string or a number (got "
                                + field.getValue() + ")");
                    }
                    parameters.put(field.getKey(), field.getValue().asText());
                }
            }
        }
        return info(HttpResponseStatus.CREATED, namespaces.create(name, kind, parameters));
    }

    private static HttpReply info(HttpResponseStatus status, Namespace namespace) {
        return HttpReply.json(
                status, HttpReply.JSON.valueToTree(namespace.info().fields()));
    }

    private static HttpReply done(String what, String name) {
        ObjectNode body = HttpReply.JSON.createObjectNode();
        body.put(what, name);
        return HttpReply.json(HttpResponseStatus.OK, body);
    }
}
