package dev.deja.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.deja.namespace.Namespace;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@code POST /batch} request read from its query and body: the body holds one key per line (CR LF or LF), or,
 * with a JSON content type, an object {@code {"keys": [...], "owners": [...], "op": ..., "ns": ...}} whose
 * {@code op} and {@code ns} may come from the query instead, but not from both.
 *
 * @param op        the operation
 * @param namespace the namespace, {@code default} when none is named
 * @param keys      the keys, in order
 * @param owners    one owner per key, or null for none
 * @param json      whether the body was JSON, and so the answer is
 */
@SuppressWarnings("ArrayRecordComponent") // never compared: a batch is parsed, run once and dropped
record Batch(KeyOp op, String namespace, List<byte[]> keys, long[] owners, boolean json) {

    /** The batch {@code call} asks for, or a 400 or 413 saying what is wrong with it. */
    static Batch of(HttpCall call, KeyLimits limits) {
        call.onlyParameters("op", "ns", "owner");
        boolean json = HttpCall.isJson(call.contentType());
        String op = call.parameter("op");
        String namespace = call.parameter("ns");
        List<byte[]> keys;
        long[] owners = null;
        if (json) {
            JsonNode body = JsonBodies.parse(call.body());
            if (!body.isObject() || !body.path("keys").isArray()) {
                throw HttpProblem.badRequest("a JSON batch must be an object with a \"keys\" array of strings");
            }
            JsonBodies.onlyFields(
                    body,
                    "a JSON batch",
                    "{\"keys\": [\"a\", \"b\"], \"op\": \"checkthenadd\"}",
                    "keys",
                    "op",
                    "ns",
                    "owners");
            op = fromBodyOrQuery(body, "op", op);
            namespace = fromBodyOrQuery(body, "ns", namespace);
            keys = jsonKeys(body.get("keys"), limits);
            owners = jsonOwners(body.get("owners"), keys.size());
            if (owners != null && call.parameter("owner") != null) {
                throw HttpProblem.badRequest("give owners in the body or owner in the query, not both");
            }
        } else {
            keys = lineKeys(call.body(), limits);
        }
        KeyOp parsed = KeyOp.parse(op);
        if (owners == null && call.parameter("owner") != null) {
            owners = new long[keys.size()];
            Arrays.fill(owners, KeyLimits.owner(call.parameter("owner")));
        }
        return new Batch(parsed, namespace == null ? Namespace.DEFAULT : namespace, keys, owners, json);
    }

    private static List<byte[]> lineKeys(byte[] body, KeyLimits limits) {
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
                keys.add(limits.key(Arrays.copyOfRange(body, start, end), keys.size()));
                limits.batchSize(keys.size());
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
        return JsonBodies.text(body, field);
    }

    private static List<byte[]> jsonKeys(JsonNode array, KeyLimits limits) {
        limits.batchSize(array.size());
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
            keys.add(limits.key(key.asText().getBytes(StandardCharsets.UTF_8), keys.size()));
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
}
