package dev.deja.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An HTTP answer before it becomes a Netty response: status, content type and body.
 *
 * @param status      the status
 * @param contentType the body's content type
 * @param body        the body
 * @param headers     further headers ({@code Allow}, {@code WWW-Authenticate})
 */
@SuppressWarnings("ArrayRecordComponent") // never compared: a reply is built once and written
record HttpReply(HttpResponseStatus status, CharSequence contentType, byte[] body, Map<String, String> headers) {

    /** Reads request bodies too: text after the first JSON value, or a field given twice, is an error. */
    static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION); // {"op":"check","op":"add"}: which one?

    // as AsciiStrings, which Netty's encoder copies whole into a response instead of char by char
    static final AsciiString TEXT = AsciiString.cached("text/plain; charset=UTF-8");
    static final AsciiString JSON_TYPE = AsciiString.cached("application/json");

    /** A text body, as the bloom HTTP server whose protocol deja follows sends them. */
    static HttpReply text(String body) {
        return new HttpReply(HttpResponseStatus.OK, TEXT, body.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    /**
     * The answers of the single-key endpoints, one line each, made once: an answer is never changed once made, so
     * every response of a kind may wrap the same bytes.
     */
    private static final Map<String, HttpReply> WORDS = Map.of(
            "MISSING", text("MISSING\n"),
            "PRESENT", text("PRESENT\n"),
            "ADDED", text("ADDED\n"),
            "RETRY", text("RETRY\n"),
            "FORGOTTEN", text("FORGOTTEN\n"));

    /** The one-line answer {@code word} of a single-key endpoint ({@code MISSING}, {@code PRESENT}...). */
    static HttpReply word(String word) {
        HttpReply reply = WORDS.get(word);
        return reply != null ? reply : text(word + "\n");
    }

    /** A JSON body. */
    static HttpReply json(HttpResponseStatus status, JsonNode body) {
        try {
            return new HttpReply(status, JSON_TYPE, JSON.writeValueAsBytes(body), Map.of());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    /** A JSON error: {@code {"error": message, "status": code}}. */
    static HttpReply error(HttpResponseStatus status, String message) {
        ObjectNode body = JSON.createObjectNode();
        body.put("error", message);
        body.put("status", status.code());
        return json(status, body);
    }

    /** This reply with one more header. */
    HttpReply withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new HttpReply(status, contentType, body, more);
    }
}
