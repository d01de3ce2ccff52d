package dev.deja.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP API driven by the JDK's HttpClient against a real server on an ephemeral port. */
class HttpApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    static Path dataDir;

    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(
                dataDir, b -> b.maxKeyBytes(100).maxBodyBytes(10_000).maxBatch(50));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void singleKeyEndpointsAnswerAsTheBloomHttpServerDoes() throws Exception {
        assertThat(get("/check?e=Hello%20Habr%21").body()).isEqualTo("MISSING\n");
        HttpResponse<String> added = get("/add?e=Hello%20Habr%21");
        assertThat(added.body()).isEqualTo("ADDED\n");
        assertThat(added.headers().firstValue("content-type")).hasValue("text/plain; charset=UTF-8");
        assertThat(get("/check?e=Hello%20Habr%21").body()).isEqualTo("PRESENT\n");
        assertThat(get("/checkthenadd?e=unexistent").body()).isEqualTo("MISSING\n");
        assertThat(get("/checkthenadd?e=unexistent").body()).isEqualTo("PRESENT\n");
    }

    @Test
    void namespaceParameterSelectsAnotherNamespace() throws Exception {
        assertThat(get("/add?e=only-in-a&ns=other-a").body()).isEqualTo("ADDED\n");
        assertThat(get("/check?e=only-in-a").body()).isEqualTo("MISSING\n");
        assertThat(get("/check?e=only-in-a&ns=other-a").body()).isEqualTo("PRESENT\n");
        assertThat(json(get("/namespaces/other-a")).get("count").asLong()).isEqualTo(1);
    }

    @Test
    void ownerTurnsARepeatIntoRetry() throws Exception {
        put("/namespaces/owned", "{\"kind\":\"recent\",\"params\":{\"keys\":\"1000\"}}");
        assertThat(get("/checkthenadd?e=msg-1&ns=owned&owner=7").body()).isEqualTo("MISSING\n");
        assertThat(get("/checkthenadd?e=msg-1&ns=owned&owner=7").body()).isEqualTo("RETRY\n");
        assertThat(get("/checkthenadd?e=msg-1&ns=owned&owner=8").body()).isEqualTo("PRESENT\n");
        assertThat(get("/forget?e=msg-1&ns=owned&owner=8").body()).isEqualTo("MISSING\n");
        assertThat(get("/forget?e=msg-1&ns=owned&owner=7").body()).isEqualTo("FORGOTTEN\n");
        assertThat(get("/check?e=msg-1&ns=owned").body()).isEqualTo("MISSING\n");
        assertError(get("/forget?e=x"), 400, "bloom cannot forget a key");
    }

    @Test
    void textBatchAnswersOneLetterPerKeyInOrder() throws Exception {
        HttpResponse<String> response = post("/batch?op=checkthenadd&ns=batch-text", "text/plain", "a\nb\r\na\nc\n");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("MMPM\n");
        assertThat(post("/batch?op=check&ns=batch-text", "text/plain", "a\nz").body())
                .isEqualTo("PM\n");
        assertThat(post("/batch?op=add&ns=batch-text", "text/plain", "z").body())
                .isEqualTo("A\n");
        assertThat(get("/check?e=z&ns=batch-text").body()).isEqualTo("PRESENT\n");
    }

    /** Only a JSON media type makes the body JSON: parameters aside, and not types that merely start the same. */
    @Test
    void theBatchFormFollowsTheMediaTypeNotItsPrefix() throws Exception {
        String body = "{\"keys\":[\"j\"]}";
        assertThat(post("/batch?op=checkthenadd&ns=batch-types", "application/json; charset=utf-8", body)
                        .body())
                .isEqualTo("{\"results\":[\"MISSING\"]}");
        assertThat(post("/batch?op=check&ns=batch-types", "Application/Problem+JSON", body)
                        .body())
                .isEqualTo("{\"results\":[\"PRESENT\"]}");
        // a JSON Lines body is lines of text: each line one key
        assertThat(post("/batch?op=checkthenadd&ns=batch-types", "application/jsonl", body + "\n" + body)
                        .body())
                .isEqualTo("MP\n");
        assertThat(HttpCall.isJson("application/json-seq")).isFalse();
        assertThat(HttpCall.isJson(null)).isFalse();
    }

    @Test
    void jsonBatchAnswersWordsWithOwners() throws Exception {
        put("/namespaces/batch-json", "{\"kind\":\"recent\",\"params\":{\"keys\":\"1000\"}}");
        String body = "{\"op\":\"checkthenadd\",\"ns\":\"batch-json\",\"keys\":[\"x\",\"y\",\"x\",\"y\"],"
                + "\"owners\":[1,2,1,3]}";
        JsonNode reply = json(post("/batch", "application/json", body));
        assertThat(reply.get("results"))
                .extracting(JsonNode::asText)
                .containsExactly("MISSING", "MISSING", "RETRY", "PRESENT");
    }

    @Test
    void badRequestsGetJsonErrorsWithTheRightStatus() throws Exception {
        assertError(get("/check"), 400, "parameter e is required");
        assertError(get("/check?e=k&owner=seven"), 400, "owner must be a 64-bit signed integer");
        assertError(get("/check?e=" + "k".repeat(101)), 413, "key must be at most 100 bytes");
        assertError(get("/check?e=" + "k".repeat(5000)), 414, "request line too long");
        assertError(post("/check?e=k", "text/plain", "x"), 405, "POST is not allowed on /check");
        assertThat(post("/check?e=k", "text/plain", "x").headers().firstValue("allow"))
                .hasValue("GET, HEAD");
        assertError(get("/nowhere"), 404, "no endpoint at /nowhere");
        assertError(post("/batch?op=check", "application/json", "{nope"), 400, "body is not valid JSON");
        assertError(post("/batch?op=explode", "text/plain", "a"), 400, "op must be one of");
        assertError(post("/batch?op=check", "text/plain", "a\n\nb"), 400, "key on line 2 is empty");
        assertError(post("/batch?op=check", "text/plain", "k\n".repeat(51)), 413, "at most 50 keys");
        assertError(post("/batch?op=check", "text/plain", "k\n".repeat(5001)), 413, "at most 10000 bytes");
        assertError(get("/check?e=k&ns=..%2Fetc"), 400, "namespace name must be");
        // A misspelt parameter is refused rather than ignored (which would send the key to the default namespace).
        assertError(
                get("/checkthenadd?e=typo-key&namespace=other"),
                400,
                "unknown query parameter 'namespace' (/checkthenadd takes: e, ns, owner)");
        assertError(post("/batch?op=add&namespaces=x", "text/plain", "typo-key"), 400, "unknown query parameter");
        assertThat(get("/check?e=typo-key").body()).isEqualTo("MISSING\n");
    }

    @Test
    void aKeyIsTheBytesTheClientPercentEncoded() throws Exception {
        put("/namespaces/bytes", "{\"kind\":\"recent\",\"params\":{\"keys\":\"1000\"}}");
        // Two different bytes that are not UTF-8 are two different keys, not one replacement character.
        assertThat(get("/checkthenadd?ns=bytes&e=%FF").body()).isEqualTo("MISSING\n");
        assertThat(get("/checkthenadd?ns=bytes&e=%FE").body()).isEqualTo("MISSING\n");
        assertThat(get("/check?ns=bytes&e=%FF").body()).isEqualTo("PRESENT\n");
        // The same key percent-encoded, sent as raw bytes in the request line (as curl sends a literal 'é') and as a
        // line of a text batch.
        assertThat(get("/add?ns=bytes&e=%C3%A9t%C3%A9").body()).isEqualTo("ADDED\n");
        byte[] raw = "GET /check?ns=bytes&e=\u00e9t\u00e9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(exchange(raw)).endsWith("PRESENT\n");
        assertThat(post("/batch?op=check&ns=bytes", "text/plain; charset=UTF-8", "\u00e9t\u00e9\n\u00e9")
                        .body())
                .isEqualTo("PM\n");
    }

    @Test
    void aSemicolonInTheQueryIsPartOfTheKey() throws Exception {
        // only '&' separates parameters (RFC 3986 allows a literal ';' in a query, as HTML forms and WHATWG URLs
        // read it); splitting at ';' sent the key 'a' to the namespace 'semi-other'
        assertThat(get("/add?e=order;42&ns=semi").body()).isEqualTo("ADDED\n");
        assertThat(get("/check?e=order%3B42&ns=semi").body()).isEqualTo("PRESENT\n");
        assertThat(get("/check?e=order&ns=semi").body()).isEqualTo("MISSING\n");
        assertThat(get("/add?e=a;ns=semi-other&ns=semi").body()).isEqualTo("ADDED\n");
        assertThat(get("/check?e=a%3Bns%3Dsemi-other&ns=semi").body()).isEqualTo("PRESENT\n");
        assertError(get("/namespaces/semi-other"), 404, "does not exist");
    }

    @Test
    void aRawHashInTheRequestTargetIsA400() throws Exception {
        // a request target has no fragment (RFC 9112, section 3.2); reading '#' as its start cut the query there,
        // so that the key 'frag' went to the default namespace instead of 'fragments'
        String replies = exchange("""
                GET /add?e=frag#ment&ns=fragments HTTP/1.1\r
                Host: x\r
                \r
                GET /check?e=frag HTTP/1.1\r
                Host: x\r
                Connection: close\r
                \r
                """);
        assertThat(replies)
                .startsWith("HTTP/1.1 400 Bad Request")
                .contains("malformed URI: a request target cannot hold '#'")
                .endsWith("MISSING\n");
        assertThat(get("/check?e=frag%23ment&ns=fragments").body())
                .as("%23 is the way")
                .isEqualTo("MISSING\n");
    }

    @Test
    void aQueryThatCannotBePercentDecodedIsA400AndTheConnectionStaysOpen() throws Exception {
        String replies = exchange("""
                GET /checkthenadd?ns=badquery&e=%ZZ HTTP/1.1\r
                Host: x\r
                \r
                GET /check?ns=badquery&e=%25ZZ HTTP/1.1\r
                Host: x\r
                Connection: close\r
                \r
                """);
        assertThat(replies).startsWith("HTTP/1.1 400 Bad Request");
        assertThat(replies).contains("malformed URI");
        assertThat(replies).contains("HTTP/1.1 200 OK");
        assertThat(replies).endsWith("MISSING\n");
        assertError(get("/namespaces/badquery"), 404, "does not exist");
    }

    @Test
    void aNamespaceBodyWithAFieldItDoesNotReadIsRefusedAndCreatesNothing() throws Exception {
        // "capacity" belongs in "params"; ignoring it would create a namespace of the default size.
        assertError(
                put("/namespaces/strict", "{\"kind\":\"bloom\",\"capacity\":1000,\"fpp\":1.5}"),
                400,
                "unknown field 'capacity' in a namespace (known: kind, params");
        assertError(put("/namespaces/strict", "[\"bloom\"]"), 400, "a namespace must be a JSON object");
        assertError(put("/namespaces/strict", "{\"kind\":7}"), 400, "kind must be a JSON string (got 7)");
        assertError(
                put("/namespaces/strict", "{\"kind\":\"bloom\",\"params\":{\"capacity\":{\"n\":1}}}"),
                400,
                "params.capacity must be a string or a number");
        assertError(
                put("/namespaces/strict", "{\"kind\":\"bloom\"} {\"kind\":\"recent\"}"), 400, "body is not valid JSON");
        assertError(get("/namespaces/strict"), 404, "namespace 'strict' does not exist");
        // Numbers are as good as strings for parameters.
        JsonNode info = json(put("/namespaces/strict", "{\"kind\":\"bloom\",\"params\":{\"capacity\":2000}}"));
        assertThat(info.get("capacity").asLong()).isEqualTo(2000);
    }

    @Test
    void aJsonBatchWithAFieldItDoesNotReadIsRefusedAndWritesNothing() throws Exception {
        assertError(
                post(
                        "/batch",
                        "application/json",
                        "{\"op\":\"add\",\"ns\":\"strict-batch\",\"keys\":[\"a\"]," + "\"owner\":5}"),
                400,
                "unknown field 'owner' in a JSON batch (known: keys, op, ns, owners");
        assertError(
                post("/batch", "application/json", "{\"op\":[\"add\"],\"keys\":[\"a\"]}"),
                400,
                "op must be a JSON string");
        assertThat(get("/check?e=a&ns=strict-batch").body()).isEqualTo("MISSING\n");
    }

    @Test
    void ambiguousRequestsAreRefusedRatherThanGuessed() throws Exception {
        // a field twice: a read could have become a write
        assertError(
                post("/batch", "application/json", "{\"keys\":[\"amb\"],\"op\":\"check\",\"op\":\"add\"}"),
                400,
                "Duplicate field 'op'");
        assertError(
                post("/batch?op=add", "application/json", "{\"keys\":[\"amb\"],\"op\":\"check\"}"),
                400,
                "give op in the body or in the query, not both");
        assertError(
                post("/batch?ns=a", "application/json", "{\"keys\":[\"amb\"],\"op\":\"add\",\"ns\":\"b\"}"),
                400,
                "give ns in the body or in the query, not both");
        assertError(
                post("/batch?owner=1", "application/json", "{\"keys\":[\"amb\"],\"op\":\"add\",\"owners\":[2]}"),
                400,
                "give owners in the body or owner in the query, not both");
        assertError(get("/add?e=amb&e=other"), 400, "query parameter 'e' must be given once (got 2)");
        assertError(
                post("/namespaces/default/clear?junk=1", "text/plain", ""),
                400,
                "unknown query parameter 'junk' (/namespaces/default/clear takes: none)");
        assertThat(get("/check?e=amb").body()).as("nothing was written").isEqualTo("MISSING\n");
        assertThat(get("/check?e=other").body()).isEqualTo("MISSING\n");
    }

    @Test
    void aJsonKeyWithAnUnpairedSurrogateIsRefused() throws Exception {
        // three different strings that have no UTF-8 form; written as '?' they would all be one key
        assertError(
                post("/batch", "application/json", "{\"keys\":[\"\\ud800\"],\"op\":\"add\"}"),
                400,
                "keys[0] is not valid Unicode");
        assertError(
                post("/batch", "application/json", "{\"keys\":[\"ok\",\"\\udfff\"],\"op\":\"add\"}"),
                400,
                "keys[1] is not valid Unicode");
        assertThat(get("/check?e=ok").body()).isEqualTo("MISSING\n");
        JsonNode paired = json(post("/batch", "application/json", "{\"keys\":[\"\\ud83d\\ude00\"],\"op\":\"add\"}"));
        assertThat(paired.get("results").get(0).asText())
                .as("a pair is one character")
                .isEqualTo("ADDED");
    }

    @Test
    void adminApiCreatesListsDescribesClearsAndDeletesNamespaces() throws Exception {
        HttpResponse<String> created =
                put("/namespaces/admin-a", "{\"kind\":\"bloom\",\"params\":{\"capacity\":\"5000\",\"fpp\":\"0.02\"}}");
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode info = json(created);
        assertThat(info.get("kind").asText()).isEqualTo("bloom");
        assertThat(info.get("capacity").asLong()).isEqualTo(5000);
        assertThat(info.get("parameters").get("capacity").asText()).isEqualTo("5000");
        assertThat(info.get("errorEstimate").get("targetFpp").asDouble()).isBetween(0.0, 0.02);
        assertThat(info.get("errorEstimate").get("fillRatio").asDouble()).isZero();
        assertThat(info.get("guarantee").get("name").asText()).isEqualTo("NEVER_FALSE_NEW");
        assertThat(info.has("errorEstimate")).isTrue();

        assertError(put("/namespaces/admin-a", "{\"kind\":\"bloom\"}"), 409, "already exists");
        assertError(
                put("/namespaces/admin-b", "{\"kind\":\"bloom\",\"params\":{\"fpp\":\"2\"}}"),
                400,
                "fpp must be in the open interval (0, 1)");
        assertError(
                put("/namespaces/admin-b", "{\"kind\":\"sideways\"}"),
                400,
                "kind must be one of [bloom, recent, exact, cuckoo]");
        assertError(put("/namespaces/admin-b", "{\"kind\":\"recent\"}"), 400, "recent needs exactly one of buckets");
        assertError(
                put(
                        "/namespaces/admin-b",
                        "{\"kind\":\"recent\",\"params\":{\"buckets\":\"1000\",\"probability\":\"0.5\"}}"),
                400,
                "recent takes probability with keys, not with buckets");

        get("/add?e=k1&ns=admin-a");
        assertThat(json(get("/namespaces/admin-a")).get("count").asLong()).isEqualTo(1);
        assertThat(json(get("/namespaces")).get("namespaces").findValuesAsText("name"))
                .contains("admin-a", "default");

        assertThat(post("/namespaces/admin-a/clear", "text/plain", "").statusCode())
                .isEqualTo(200);
        assertThat(get("/check?e=k1&ns=admin-a").body()).isEqualTo("MISSING\n");
        assertThat(post("/namespaces/admin-a/snapshot", "text/plain", "").statusCode())
                .isEqualTo(202);

        assertThat(delete("/namespaces/admin-a").statusCode()).isEqualTo(200);
        assertError(get("/namespaces/admin-a"), 404, "namespace 'admin-a' does not exist");
        assertThat(json(get("/namespaces/admin-a")).get("error").asText())
                .as("auto-create is on: no hint for it")
                .isEqualTo("namespace 'admin-a' does not exist (create it first)");
        assertError(delete("/namespaces/admin-a"), 404, "does not exist");
    }

    @Test
    void mergeIsAUnionOfTwoNamespacesOfTheSameShape() throws Exception {
        put("/namespaces/merge-a", "{\"kind\":\"bloom\",\"params\":{\"capacity\":\"100\"}}");
        put("/namespaces/merge-b", "{\"kind\":\"bloom\",\"params\":{\"capacity\":\"100\"}}");
        put("/namespaces/merge-c", "{\"kind\":\"bloom\",\"params\":{\"capacity\":\"200\"}}");
        get("/add?e=left&ns=merge-a");
        get("/add?e=right&ns=merge-b");
        assertThat(post("/namespaces/merge-a/merge?from=merge-b", "text/plain", "")
                        .statusCode())
                .isEqualTo(200);
        assertThat(get("/check?e=right&ns=merge-a").body()).isEqualTo("PRESENT\n");
        assertThat(get("/check?e=left&ns=merge-b").body()).isEqualTo("MISSING\n");
        assertError(post("/namespaces/merge-a/merge?from=merge-c", "text/plain", ""), 400, "same kind and parameters");
    }

    @Test
    void healthInfoAndMetrics() throws Exception {
        assertThat(json(get("/health")).get("status").asText()).isEqualTo("UP");
        JsonNode info = json(get("/info"));
        assertThat(info.get("server").asText()).isEqualTo("deja");
        assertThat(info.get("limits").get("maxKeyBytes").asInt()).isEqualTo(100);
        get("/add?e=counted&ns=metered");
        String metrics = get("/metrics").body();
        assertThat(metrics).contains("deja_operations_total{command=\"add\",frontend=\"http\"}");
        assertThat(metrics).contains("deja_namespace_keys{kind=\"bloom\",namespace=\"metered\"} 1.0");
        assertThat(metrics).contains("deja_connections");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws Exception {
        String requests = """
                GET /add?e=p1&ns=piped HTTP/1.1\r
                Host: x\r
                \r
                GET /check?e=p1&ns=piped HTTP/1.1\r
                Host: x\r
                \r
                GET /check?e=p2&ns=piped HTTP/1.1\r
                Host: x\r
                Connection: close\r
                \r
                """;
        String replies = exchange(requests);
        assertThat(replies.split("HTTP/1.1 200 OK", -1)).hasSize(4);
        assertThat(replies.indexOf("ADDED\n")).isLessThan(replies.indexOf("PRESENT\n"));
        assertThat(replies.indexOf("PRESENT\n")).isLessThan(replies.indexOf("MISSING\n"));
    }

    /**
     * A clear runs off the network thread; the requests pipelined after it run once it is done, so they see its
     * effect, and a clear with "Connection: close" is answered before the connection closes.
     */
    @Test
    void requestsPipelinedAfterAClearSeeItAndAClosingClearIsAnswered() throws Exception {
        String clear = "POST /namespaces/pclear/clear HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n";
        String replies = exchange("GET /add?e=c1&ns=pclear HTTP/1.1\r\nHost: x\r\n\r\n"
                + clear + "\r\n"
                + "GET /check?e=c1&ns=pclear HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /add?e=c2&ns=pclear HTTP/1.1\r\nHost: x\r\n\r\n"
                + clear + "Connection: close\r\n\r\n");
        assertThat(replies.split("HTTP/1.1 200 OK", -1)).as("five replies").hasSize(6);
        int added = replies.indexOf("ADDED\n");
        int cleared = replies.indexOf("\"cleared\"");
        int missing = replies.indexOf("MISSING\n");
        int addedAgain = replies.indexOf("ADDED\n", added + 1);
        int clearedAgain = replies.indexOf("\"cleared\"", cleared + 1);
        assertThat(List.of(added, cleared, missing, addedAgain, clearedAgain))
                .doesNotContain(-1)
                .isSorted();
        assertThat(get("/check?e=c2&ns=pclear").body()).isEqualTo("MISSING\n");
    }

    @Test
    void requestsPipelinedAfterTheLastOneOfTheConnectionAreNotExecuted() throws Exception {
        // RFC 9112, section 9.6: after a request with "Connection: close" (or an HTTP/1.0 one without keep-alive)
        // the server closes; what the client sent after it is neither run nor answered
        String replies = exchange("""
                GET /check?e=first&ns=last-request HTTP/1.1\r
                Host: x\r
                Connection: close\r
                \r
                GET /add?e=after-close&ns=last-request HTTP/1.1\r
                Host: x\r
                \r
                """);
        assertThat(replies.split("HTTP/1.1 ", -1)).as("one reply").hasSize(2);
        assertThat(replies).endsWith("MISSING\n");
        String old = exchange("""
                GET /add?e=http10&ns=last-request HTTP/1.0\r
                \r
                GET /add?e=after-http10&ns=last-request HTTP/1.0\r
                \r
                """);
        assertThat(old.split("HTTP/1.0 ", -1)).as("one reply").hasSize(2);
        assertThat(old).endsWith("ADDED\n");
        assertThat(get("/check?e=after-close&ns=last-request").body()).isEqualTo("MISSING\n");
        assertThat(get("/check?e=after-http10&ns=last-request").body()).isEqualTo("MISSING\n");
        assertThat(get("/check?e=http10&ns=last-request").body()).isEqualTo("PRESENT\n");
    }

    @Test
    void aDeepPipelineInOneWriteIsAnsweredInFull() throws Exception {
        // more than Netty's default depth of 128, past which its handler would close the connection unanswered
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            requests.append("GET /checkthenadd?e=deep-")
                    .append(i)
                    .append("&ns=deep HTTP/1.1\r\nHost: x\r\n")
                    .append(i == 999 ? "Connection: close\r\n" : "")
                    .append("\r\n");
        }
        String replies = exchange(requests.toString());
        assertThat(replies.split("HTTP/1.1 200 OK", -1)).hasSize(1001);
        assertThat(replies.split("MISSING\n", -1))
                .as("each key new, each answered")
                .hasSize(1001);
    }

    @Test
    void aRequestTargetInAbsoluteFormIsServed() throws Exception {
        // as a proxy sends it (RFC 9112, section 3.2.2)
        assertThat(exchange("GET http://127.0.0.1/check?e=absolute HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 200 OK")
                .endsWith("MISSING\n");
        assertThat(exchange("GET HTTP://127.0.0.1:8889 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .as("no path: the root, the status page")
                .startsWith("HTTP/1.1 200 OK")
                .contains("<title>deja status</title>");
        assertThat(exchange("GET HTTP://127.0.0.1:8889?x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .as("the root, whose page takes no parameter")
                .startsWith("HTTP/1.1 400")
                .contains("unknown query parameter 'x' (/ takes: none)");
        assertThat(HttpCall.originForm("https://h:1/health")).isEqualTo("/health");
        assertThat(HttpCall.originForm("http://h")).isEqualTo("/");
        assertThat(HttpCall.originForm("/check?e=http://x/y")).isEqualTo("/check?e=http://x/y");
    }

    @Test
    void headAnswersReadsWithTheirHeadersAndNeverWrites() throws Exception {
        // a HEAD gets a GET's status and headers and no body; the next request on the connection is read normally
        String replies = exchange("""
                HEAD /health HTTP/1.1\r
                Host: x\r
                \r
                HEAD /check?e=head-key&ns=heads HTTP/1.1\r
                Host: x\r
                \r
                HEAD /add?e=head-key&ns=heads HTTP/1.1\r
                Host: x\r
                \r
                GET /check?e=head-key&ns=heads HTTP/1.1\r
                Host: x\r
                Connection: close\r
                \r
                """);
        String[] parts = replies.split("HTTP/1.1 ", -1);
        assertThat(parts).hasSize(5);
        assertThat(parts[1]).startsWith("200 OK").contains("content-length: 15").endsWith("\r\n\r\n");
        assertThat(parts[2]).startsWith("200 OK").contains("content-length: 8").endsWith("\r\n\r\n");
        // a HEAD is taken as safe by proxies and crawlers, so the write endpoints refuse it
        assertThat(parts[3]).startsWith("405 Method Not Allowed").contains("Allow: GET\r\n");
        assertThat(parts[4]).startsWith("200 OK").endsWith("MISSING\n");
    }

    @Test
    void anOversizedBodyAnnouncedWithExpectContinueGetsTheJson413() throws Exception {
        // curl sends "Expect: 100-continue" for bodies over 1 MiB and waits for the answer before sending them
        String reply = exchange("""
                POST /batch?op=check HTTP/1.1\r
                Host: x\r
                Content-Type: text/plain\r
                Content-Length: 10001\r
                Expect: 100-continue\r
                \r
                """);
        assertThat(reply)
                .startsWith("HTTP/1.1 413 Request Entity Too Large\r\n")
                .contains("connection: close\r\n")
                .endsWith("{\"error\":\"request body must be at most 10000 bytes\",\"status\":413}");
        assertThat(exchange("""
                POST /batch?op=check HTTP/1.1\r
                Host: x\r
                Content-Type: text/plain\r
                Content-Length: 2\r
                Expect: 100-continue\r
                Connection: close\r
                \r
                k
                """))
                .as("a body within the limit is invited and answered")
                .startsWith("HTTP/1.1 100 Continue\r\n")
                .endsWith("M\n");
    }

    @Test
    void theStatusLineNamesTheVersionTheServerSpeaks() throws Exception {
        // RFC 9110, section 6.2: an HTTP/1.1 server answers a later 1.x with HTTP/1.1, and cannot answer a later
        // major version in HTTP/1.1's framing at all: echoing "HTTP/2.0 200 OK" in HTTP/1.1 framing would be wrong
        assertThat(exchange("GET /check?e=v HTTP/1.2\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 200 OK\r\n")
                .endsWith("MISSING\n");
        assertThat(exchange("GET /check?e=v HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.0 200 OK\r\n");
        String reply = exchange("""
                GET /add?e=version-two&ns=versions HTTP/2.0\r
                Host: x\r
                \r
                GET /health HTTP/1.1\r
                Host: x\r
                \r
                """);
        assertThat(reply)
                .startsWith("HTTP/1.1 505 HTTP Version Not Supported\r\n")
                .contains("content-type: application/json\r\n")
                .contains("connection: close\r\n")
                .endsWith("{\"error\":\"HTTP/2.0 is not supported: this server speaks HTTP/1.1\",\"status\":505}");
        assertError(get("/namespaces/versions"), 404, "does not exist");
    }

    @Test
    void aBodyOverTheLimitIsRefusedAfterTheAnswersToTheRequestsBeforeIt() throws Exception {
        // the 413 comes after the answers still owed to the requests pipelined before it: written as soon as the
        // header is read, it would go out ahead of them, which would be lost with the connection, and a client would
        // take it for their answer
        String announced = """
                POST /batch?op=check HTTP/1.1\r
                Host: x\r
                Content-Type: text/plain\r
                Content-Length: 10001\r
                """;
        for (String expect : new String[] {"", "Expect: 100-continue\r\n"}) {
            String replies = exchange("GET /add?e=before-refusal&ns=refusal-order HTTP/1.1\r\nHost: x\r\n\r\n"
                    + announced + expect + "\r\n");
            assertThat(replies)
                    .as(expect)
                    .startsWith("HTTP/1.1 200 OK\r\n")
                    .contains("ADDED\nHTTP/1.1 413 Request Entity Too Large\r\n")
                    .endsWith("{\"error\":\"request body must be at most 10000 bytes\",\"status\":413}");
        }
        String refused = exchange("""
                GET /add?e=before-417&ns=refusal-order HTTP/1.1\r
                Host: x\r
                \r
                POST /batch?op=check HTTP/1.1\r
                Host: x\r
                Content-Length: 2\r
                Expect: 200-ok\r
                \r
                k
                """);
        assertThat(refused).startsWith("HTTP/1.1 200 OK\r\n").contains("ADDED\nHTTP/1.1 417 Expectation Failed\r\n");
    }

    @Test
    void anHttp11RequestWithoutExactlyOneHostIsA400() throws Exception {
        // RFC 9112, section 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host header or with two
        assertThat(exchange("GET /add?e=hostless&ns=hosts HTTP/1.1\r\n\r\n"))
                .startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("connection: close\r\n")
                .endsWith("{\"error\":\"an HTTP/1.1 request needs exactly one Host header (got 0)\",\"status\":400}");
        assertThat(exchange("GET /add?e=two-hosts&ns=hosts HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"))
                .startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("exactly one Host header (got 2)");
        assertThat(exchange("GET /add?e=http10&ns=hosts HTTP/1.0\r\n\r\n"))
                .as("HTTP/1.0 has no Host requirement")
                .startsWith("HTTP/1.0 200 OK\r\n")
                .endsWith("ADDED\n");
        assertThat(get("/check?e=hostless&ns=hosts").body()).isEqualTo("MISSING\n");
        assertThat(get("/check?e=two-hosts&ns=hosts").body()).isEqualTo("MISSING\n");
    }

    @Test
    void anExpectationOtherThan100ContinueGetsAJson417() throws Exception {
        // RFC 9110, section 10.1.1: 417 for an expectation the server cannot meet; an error, so a JSON one
        String reply = exchange("""
                POST /batch?op=check HTTP/1.1\r
                Host: x\r
                Content-Type: text/plain\r
                Content-Length: 2\r
                Expect: 200-ok\r
                \r
                k
                """);
        assertThat(reply)
                .startsWith("HTTP/1.1 417 Expectation Failed\r\n")
                .contains("content-type: application/json\r\n")
                .contains("connection: close\r\n")
                .endsWith("{\"error\":\"unsupported expectation '200-ok': only '100-continue' is understood\","
                        + "\"status\":417}");
    }

    @Test
    void aPasswordOutsideAsciiIsAcceptedInTheBytesClientsSend(@TempDir Path guardedDir) throws Exception {
        // curl and the Redis clients send the password's UTF-8 bytes; RESP's AUTH took them, HTTP never did
        try (TestServer guarded = TestServer.start(guardedDir, b -> b.password("p\u00e4ssw\u00f6rd"))) {
            String request =
                    "GET /check?e=k HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer %s\r\n\r\n";
            byte[] right = request.formatted("p\u00e4ssw\u00f6rd").getBytes(StandardCharsets.UTF_8);
            assertThat(exchange(guarded.httpPort(), right))
                    .startsWith("HTTP/1.1 200 OK")
                    .endsWith("MISSING\n");
            byte[] wrong = request.formatted("passwort").getBytes(StandardCharsets.UTF_8);
            assertThat(exchange(guarded.httpPort(), wrong)).startsWith("HTTP/1.1 401 Unauthorized");
        }
    }

    @Test
    void malformedHttpClosesOnlyThatConnection() throws Exception {
        String reply = exchange("GET /check?e=a HTTP/1.1\r\nHost: x\r\nContent-Length: banana\r\n\r\n");
        assertThat(reply).startsWith("HTTP/1.1 400");
        assertThat(reply).contains("malformed HTTP request");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    /** Headers over the 16 KiB limit are a 431, and the connection then closes; the server goes on serving. */
    @Test
    void headersOverTheLimitGetA431() throws Exception {
        String reply = exchange("GET /check?e=k HTTP/1.1\r\nHost: x\r\nX-Padding: " + "p".repeat(20_000) + "\r\n\r\n");
        assertThat(reply)
                .startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n")
                .contains("\"error\":\"request headers too large: ")
                .endsWith("\"status\":431}");
        assertThat(get("/check?e=k").statusCode()).isEqualTo(200);
    }

    /**
     * Every response carries a Date header (RFC 9110 6.6.1: an origin server with a clock must send one) in the
     * IMF-fixdate form, giving the time the response was made, errors included.
     */
    @Test
    void everyResponseCarriesTheDateInTheHttpForm() throws Exception {
        for (HttpResponse<String> response : List.of(get("/check?e=k"), get("/nowhere"), get("/health"))) {
            long before = System.currentTimeMillis() / 1000;
            String date = response.headers().firstValue("date").orElseThrow();
            assertThat(date)
                    .matches("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
            long at = java.time.ZonedDateTime.parse(date, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toEpochSecond();
            assertThat(at).isBetween(before - 5, before + 1);
        }
    }

    private static void assertError(HttpResponse<String> response, int status, String message) throws IOException {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("status").asInt()).isEqualTo(status);
        assertThat(body.get("error").asText()).contains(message);
    }

    static String exchange(String raw) throws IOException {
        return exchange(raw.getBytes(StandardCharsets.US_ASCII));
    }

    static String exchange(byte[] raw) throws IOException {
        return exchange(server.httpPort(), raw);
    }

    private static String exchange(int port, byte[] raw) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(raw);
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static JsonNode json(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body());
    }

    static HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    static HttpResponse<String> post(String path, String contentType, String body) throws Exception {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static HttpResponse<String> put(String path, String body) throws Exception {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static HttpResponse<String> delete(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + path);
    }

    static String encode(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }
}
