package dev.deja.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The status page's files, the JSON it reads ({@code /activity}, {@code /info}) and their password, over HTTP. */
class StatusEndpointsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    @Test
    void thePageAndItsFilesAreServedWithTheirTypesAndRevalidatedByEntityTag() throws Exception {
        try (TestServer server = TestServer.start(dataDir)) {
            HttpResponse<String> page = send(server, "GET", "/", null, null);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
            assertThat(page.headers().firstValue("cache-control")).hasValue("no-cache");
            assertThat(page.headers().firstValue("content-security-policy"))
                    .hasValueSatisfying(csp ->
                            assertThat(csp).contains("default-src 'none'", "script-src 'self'", "connect-src 'self'"));
            assertThat(page.body()).contains("<script src=\"/status.js\"", "href=\"/status.css\"");
            assertThat(page.body()).as("nothing from elsewhere").doesNotContain("http://", "https://");
            String etag = page.headers().firstValue("etag").orElseThrow();

            HttpResponse<String> again = send(server, "GET", "/", null, etag);
            assertThat(again.statusCode()).isEqualTo(304);
            assertThat(again.body()).isEmpty();
            assertThat(again.headers().firstValue("etag")).hasValue(etag);
            assertThat(send(server, "GET", "/", null, "\"another\"").statusCode())
                    .isEqualTo(200);

            HttpResponse<String> script = send(server, "GET", "/status.js", null, null);
            assertThat(script.headers().firstValue("content-type")).hasValue("text/javascript; charset=utf-8");
            assertThat(script.headers().firstValue("x-content-type-options")).hasValue("nosniff");
            assertThat(script.body().replace("'http://www.w3.org/2000/svg'", "'(the SVG namespace)'"))
                    .as("nothing from elsewhere")
                    .contains("fetch(")
                    .doesNotContain("http://", "https://");
            HttpResponse<String> style = send(server, "GET", "/status.css", null, null);
            assertThat(style.headers().firstValue("content-type")).hasValue("text/css; charset=utf-8");

            HttpResponse<String> head = send(server, "HEAD", "/", null, null);
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.headers().firstValue("content-length"))
                    .hasValue(Integer.toString(page.body().getBytes(StandardCharsets.UTF_8).length));
            HttpResponse<String> post = send(server, "POST", "/", null, null);
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD");
        }
    }

    @Test
    void activityCountsEveryNamespacesOperationsAndInfoReportsHeapAndDisk() throws Exception {
        try (TestServer server = TestServer.start(dataDir)) {
            put(server, "/namespaces/orders", "{\"kind\":\"recent\",\"params\":{\"keys\":\"1000\"}}");
            send(server, "GET", "/checkthenadd?e=a&ns=orders", null, null);
            send(server, "GET", "/check?e=a&ns=orders", null, null);
            HttpResponse<String> batch = CLIENT.send(
                    HttpRequest.newBuilder(uri(server, "/batch?op=checkthenadd&ns=orders"))
                            .POST(HttpRequest.BodyPublishers.ofString("b\nc\nd\n"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(batch.body()).isEqualTo("MMM\n");
            send(server, "GET", "/forget?e=b&ns=orders", null, null);

            // the sampler reads the counts every few seconds; the first sample of a namespace only sets its start
            JsonNode orders = null;
            for (int attempt = 0; attempt < 300; attempt++) {
                JsonNode activity = json(send(server, "GET", "/activity", null, null));
                assertThat(activity.get("intervalSeconds").asDouble()).isEqualTo(5.0);
                assertThat(activity.get("samples").asInt()).isEqualTo(120);
                orders = activity.get("namespaces").get("orders");
                if (orders != null && orders.get("operations").asLong() == 6) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(orders).isNotNull();
            assertThat(orders.get("operations").asLong())
                    .as("1 checkthenadd, 1 check, 3 keys of a batch, 1 forget")
                    .isEqualTo(6);
            assertThat(orders.get("perSecond").isArray()).isTrue();
            assertThat(orders.get("perSecond").size()).isLessThanOrEqualTo(120);

            JsonNode info = json(send(server, "GET", "/info", null, null));
            assertThat(info.get("heap").get("usedBytes").asLong()).isPositive();
            assertThat(info.get("heap").get("maxBytes").asLong())
                    .isGreaterThanOrEqualTo(info.get("heap").get("usedBytes").asLong());
            JsonNode disk = info.get("disk");
            assertThat(disk.get("dataDir").asText())
                    .isEqualTo(dataDir.toAbsolutePath().toString());
            assertThat(disk.get("usableBytes").asLong()).isPositive();
            assertThat(disk.get("totalBytes").asLong())
                    .isGreaterThanOrEqualTo(disk.get("usableBytes").asLong());
            assertThat(disk.get("usedBytes").asLong())
                    .as("measured once at the start")
                    .isNotNegative();
        }
    }

    @Test
    void withAPasswordThePageAsksForBasicCredentialsAndNothingIsReadableWithoutThem() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.password("s3cret"))) {
            for (String path : new String[] {"/", "/status.js", "/status.css"}) {
                HttpResponse<String> refused = send(server, "GET", path, null, null);
                assertThat(refused.statusCode()).as(path).isEqualTo(401);
                assertThat(refused.headers().firstValue("www-authenticate"))
                        .as("a browser asks its user for the password on this challenge")
                        .hasValue("Basic realm=\"deja\", charset=\"UTF-8\"");
                assertThat(refused.body()).doesNotContain("<html", "fetch(");
            }
            for (String path : new String[] {"/activity", "/info", "/namespaces", "/metrics"}) {
                HttpResponse<String> refused = send(server, "GET", path, null, null);
                assertThat(refused.statusCode()).as(path).isEqualTo(401);
                assertThat(refused.headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"deja\"");
                assertThat(send(server, "GET", path, basic("anyone", "wrong"), null)
                                .statusCode())
                        .as(path)
                        .isEqualTo(401);
                assertThat(send(server, "GET", path, basic("anyone", "s3cret"), null)
                                .statusCode())
                        .as(path)
                        .isEqualTo(200);
                assertThat(send(server, "GET", path, "Bearer s3cret", null).statusCode())
                        .as(path)
                        .isEqualTo(200);
            }
            HttpResponse<String> wrong = send(server, "GET", "/", basic("admin", "s3cre"), null);
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.headers().firstValue("www-authenticate"))
                    .hasValue("Basic realm=\"deja\", charset=\"UTF-8\"");
            HttpResponse<String> page = send(server, "GET", "/", basic("", "s3cret"), null);
            assertThat(page.statusCode()).as("any user name, even none").isEqualTo(200);
            assertThat(page.body()).contains("<title>deja status</title>");
            assertThat(send(server, "GET", "/check?e=k", basic("x", "s3cret:with-colon"), null)
                            .statusCode())
                    .isEqualTo(401);
            assertThat(send(server, "GET", "/check?e=k", basic("x", "s3cret"), null)
                            .body())
                    .isEqualTo("MISSING\n");
            assertThat(send(server, "GET", "/health", null, null).statusCode()).isEqualTo(200);
        }
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static URI uri(TestServer server, String path) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + path);
    }

    private static HttpResponse<String> send(
            TestServer server, String method, String path, String authorization, String ifNoneMatch) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(uri(server, path)).method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (ifNoneMatch != null) {
            request.header("If-None-Match", ifNoneMatch);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void put(TestServer server, String path, String body) throws Exception {
        HttpResponse<String> created = CLIENT.send(
                HttpRequest.newBuilder(uri(server, path))
                        .PUT(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
