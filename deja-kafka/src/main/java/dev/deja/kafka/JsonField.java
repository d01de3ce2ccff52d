package dev.deja.kafka;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Reads one field of a JSON document, by Jackson's tree model and a JSON pointer built from a dotted path. */
final class JsonField {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final JsonPointer pointer;

    JsonField(String dottedPath) {
        StringBuilder pointer = new StringBuilder();
        for (String part : dottedPath.split("\\.", -1)) {
            pointer.append('/').append(part.replace("~", "~0").replace("/", "~1"));
        }
        this.pointer = JsonPointer.compile(pointer.toString());
    }

    /** The field's text as UTF-8, or null when the document is not JSON or the field is absent, null or empty. */
    byte[] read(byte[] json) {
        if (json == null || json.length == 0) {
            return null;
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(json).at(pointer);
        } catch (IOException e) {
            return null; // not JSON: the record has no id, which the missing-id route handles
        }
        if (!node.isValueNode() || node.isNull()) {
            return null;
        }
        String text = node.asText();
        return text.isEmpty() ? null : text.getBytes(StandardCharsets.UTF_8);
    }
}
