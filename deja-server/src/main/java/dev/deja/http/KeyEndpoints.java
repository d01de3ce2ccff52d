package dev.deja.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.metrics.ServerMetrics;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.seen.SeenSet;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The key endpoints: {@code /check}, {@code /add}, {@code /checkthenadd} and {@code /forget} with one key
 * ({@code ?e=key&ns=name&owner=n}), answered with the words of the bloom HTTP protocol deja follows ({@code MISSING},
 * {@code PRESENT}, {@code ADDED}, and deja's {@code RETRY} and {@code FORGOTTEN}), and {@code POST /batch}, answered
 * with their first letters in order, or as JSON.
 */
final class KeyEndpoints {

    private final NamespaceRegistry namespaces;
    private final ServerMetrics metrics;
    private final KeyLimits limits;

    KeyEndpoints(NamespaceRegistry namespaces, ServerMetrics metrics, KeyLimits limits) {
        this.namespaces = namespaces;
        this.metrics = metrics;
        this.limits = limits;
    }

    /** {@code GET /check} (and {@code HEAD}), {@code /add}, {@code /checkthenadd} or {@code /forget}. */
    HttpResult single(HttpCall call, KeyOp op) {
        if (op == KeyOp.CHECK) {
            call.allow(HttpMethod.GET, HttpMethod.HEAD);
        } else {
            call.allow(HttpMethod.GET); // writes: never on a HEAD, which proxies and crawlers take as safe
        }
        call.onlyParameters("e", "ns", "owner");
        byte[] key = call.requiredBytes("e");
        if (key.length == 0) {
            throw HttpProblem.badRequest("parameter e must be a non-empty key");
        }
        limits.key(key, -1);
        String name = call.parameter("ns") == null ? Namespace.DEFAULT : call.parameter("ns");
        long owner = KeyLimits.owner(call.parameter("owner"));
        metrics.operations(HttpErrors.FRONT_END, op.label(), 1);
        if (op == KeyOp.CHECK) {
            SeenSet store = storeOrNull(name);
            return HttpResult.now(HttpReply.word(store != null && store.check(key) ? "PRESENT" : "MISSING"));
        }
        long[] owners = owner == SeenSet.NO_OWNER ? null : new long[] {owner};
        return new HttpResult.Later(
                execute(op, name, List.of(key), owners).thenApply(results -> HttpReply.word(results[0])));
    }

    /** {@code POST /batch}. */
    HttpResult batch(HttpCall call) {
        call.allow(HttpMethod.POST);
        Batch batch = Batch.of(call, limits);
        metrics.operations(
                HttpErrors.FRONT_END,
                "batch_" + batch.op().label(),
                batch.keys().size());
        return new HttpResult.Later(execute(batch.op(), batch.namespace(), batch.keys(), batch.owners())
                .thenApply(results -> batch.json() ? jsonResults(results) : letterResults(results)));
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

    /** Runs a key operation; writes complete when the journal has them. */
    private CompletableFuture<String[]> execute(KeyOp op, String name, List<byte[]> keys, long[] owners) {
        return switch (op) {
            case CHECK -> {
                SeenSet store = storeOrNull(name);
                boolean[] held = store == null ? new boolean[keys.size()] : store.checkAll(keys);
                String[] results = new String[held.length];
                for (int i = 0; i < held.length; i++) {
                    results[i] = held[i] ? "PRESENT" : "MISSING";
                }
                yield CompletableFuture.completedFuture(results);
            }
            case ADD -> {
                Namespace namespace = namespaces.getOrCreate(name);
                yield namespace.checkThenAdd(keys, owners).thenApply(verdicts -> {
                    String[] results = new String[verdicts.length];
                    for (int i = 0; i < verdicts.length; i++) {
                        // a filter that could not take the key (full) did not add it
                        results[i] = namespace.refused(verdicts[i]) ? "RETRY" : "ADDED";
                    }
                    return results;
                });
            }
            case CHECKTHENADD ->
                namespaces.getOrCreate(name).checkThenAdd(keys, owners).thenApply(verdicts -> {
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
            case FORGET ->
                namespaces
                        .getOrEmpty(name) // a namespace not created yet holds no key, and is not created for that
                        .map(namespace -> namespace.forget(keys, owners))
                        .orElseGet(() -> CompletableFuture.completedFuture(new boolean[keys.size()]))
                        .thenApply(forgotten -> {
                            String[] results = new String[forgotten.length];
                            for (int i = 0; i < forgotten.length; i++) {
                                results[i] = forgotten[i] ? "FORGOTTEN" : "MISSING";
                            }
                            return results;
                        });
        };
    }

    /** The store to check keys in, or null when the namespace does not exist yet: it holds no key then. */
    private SeenSet storeOrNull(String name) {
        return namespaces.getOrEmpty(name).map(Namespace::store).orElse(null);
    }
}
