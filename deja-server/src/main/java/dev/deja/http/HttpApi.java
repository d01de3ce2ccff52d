package dev.deja.http;

import dev.deja.server.Failures;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * deja's HTTP API (documented in docs/PROTOCOL.md): authenticates each request, routes it by its path to the key
 * endpoints, the namespace admin API, the server's own endpoints or the status page, and turns whatever fails into its
 * JSON error.
 */
final class HttpApi {

    private final HttpAuth auth;
    private final HttpErrors errors;
    private final KeyEndpoints keys;
    private final NamespaceEndpoints namespaces;
    private final ServerEndpoints server;

    HttpApi(ServerContext context, HttpAuth auth) {
        this.auth = auth;
        this.errors = new HttpErrors(context.metrics());
        this.keys = new KeyEndpoints(
                context.namespaces(),
                context.metrics(),
                new KeyLimits(context.config().maxKeyBytes(), context.config().maxBatch()));
        this.namespaces = new NamespaceEndpoints(context);
        this.server = new ServerEndpoints(context);
    }

    /** The result of one request; never fails: a failure is its error reply. */
    HttpResult handle(HttpCall call) {
        try {
            HttpProblem unauthorized = auth.refusal(call.path(), call.authorization());
            if (unauthorized != null) {
                errors.count("unauthorized");
                return HttpResult.now(unauthorized.reply());
            }
            return settled(call, route(call));
        } catch (RuntimeException e) {
            return HttpResult.now(errors.reply(call, e));
        }
    }

    /**
     * Counts a request refused as it was read, before it reached the API, as {@link HttpErrors} counts a refusal: by
     * its status's reason phrase, and a body sent without the password as {@code unauthorized}.
     */
    void countRefused(HttpResponseStatus status) {
        errors.count(status.equals(HttpResponseStatus.UNAUTHORIZED) ? "unauthorized" : status.reasonPhrase());
    }

    /** The result with its failures, now or later, on the loop or off it, turned into error replies. */
    private HttpResult settled(HttpCall call, HttpResult result) {
        return switch (result) {
            case HttpResult.Now now -> now;
            case HttpResult.Later later ->
                new HttpResult.Later(later.reply()
                        .handle((reply, error) -> error == null ? reply : errors.reply(call, Failures.cause(error))));
            case HttpResult.OffLoop offLoop ->
                new HttpResult.OffLoop(() -> {
                    try {
                        return settled(call, offLoop.work().get());
                    } catch (RuntimeException e) {
                        return HttpResult.now(errors.reply(call, e));
                    }
                });
        };
    }

    private HttpResult route(HttpCall call) {
        if (call.malformedUri() != null) {
            throw HttpProblem.badRequest(call.malformedUri());
        }
        String path = call.path();
        return switch (path) {
            case "/check" -> keys.single(call, KeyOp.CHECK);
            case "/add" -> keys.single(call, KeyOp.ADD);
            case "/checkthenadd" -> keys.single(call, KeyOp.CHECKTHENADD);
            case "/forget" -> keys.single(call, KeyOp.FORGET);
            case "/batch" -> keys.batch(call);
            case NamespaceEndpoints.PATH -> namespaces.list(call);
            case "/info" -> server.info(call);
            case "/health" -> server.health(call);
            case "/metrics" -> server.metrics(call);
            case "/activity" -> server.activity(call);
            default -> {
                if (StatusPage.serves(path)) {
                    yield StatusPage.serve(call);
                }
                if (path.startsWith(NamespaceEndpoints.PATH + "/")) {
                    yield namespaces.route(
                            call,
                            path.substring(NamespaceEndpoints.PATH.length() + 1).split("/", -1));
                }
                throw new HttpProblem(
                        HttpResponseStatus.NOT_FOUND, "no endpoint at " + path + " (see docs/PROTOCOL.md)");
            }
        };
    }
}
