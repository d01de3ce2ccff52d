package dev.deja.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** Reading JSON request bodies strictly: malformed JSON, unknown fields and mistyped values are 400s. */
final class JsonBodies {

    private JsonBodies() {}

    /** The body as a JSON tree, or a 400 saying why it is not JSON. */
    static JsonNode parse(byte[] body) {
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
    static void onlyFields(JsonNode body, String what, String example, String... known) {
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

    /** A field that must be a JSON string. */
    static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (!value.isTextual()) {
            throw HttpProblem.badRequest(field + " must be a JSON string (got " + value + ")");
        }
        return value.asText();
    }
}
