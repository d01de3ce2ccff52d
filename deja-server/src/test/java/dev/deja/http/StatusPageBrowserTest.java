package dev.deja.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.testing.HeadlessChromium;
import dev.deja.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real browser (Debian's headless chromium): it loads, shows the namespaces and their kinds,
 * its numbers move when keys are written, and with a password it shows nothing until the browser has it.
 */
class StatusPageBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    /** Enough virtual time for the page's first reading of the API; its timers fire at once. */
    private static final int VIRTUAL_MILLIS = 5_000;

    @TempDir
    Path dataDir;

    @TempDir
    Path browserDir;

    @Test
    void showsEveryNamespaceWithItsKindAndItsNumbersMoveWithWrites() throws Exception {
        HeadlessChromium browser = new HeadlessChromium(browserDir);
        try (TestServer server = TestServer.start(dataDir)) {
            create(server, "orders", "{\"kind\":\"recent\",\"params\":{\"keys\":\"10000\"}}");
            create(server, "users", "{\"kind\":\"bloom\",\"params\":{\"capacity\":\"10000\",\"fpp\":\"0.001\"}}");
            create(
                    server,
                    "events",
                    "{\"kind\":\"exact\",\"params\":{\"window\":\"1h\",\"blockCache\":\"1m\",\"memtable\":\"1m\"}}");
            String url = "http://127.0.0.1:" + server.httpPort() + "/";

            String before = browser.dumpDom(url, VIRTUAL_MILLIS);
            assertThat(text(before, "state")).startsWith("updated");
            assertThat(text(before, "version")).isEqualTo("0.1.0");
            assertThat(text(before, "heap")).matches("[0-9.]+ [KMG]iB of [0-9.]+ [KMG]iB");
            assertThat(text(before, "disk")).matches("[0-9.]+ (B|[KMG]iB) used, [0-9.]+ [KMGT]iB free");
            assertThat(row(before, "default", "bloom")).isNotNull();
            assertThat(row(before, "orders", "recent")).contains(">recent<", ">0<");
            assertThat(row(before, "users", "bloom")).contains(">bloom<", "fpp 0");
            assertThat(row(before, "events", "exact")).contains(">exact<", "window ");
            assertThat(number(row(before, "orders", "recent"), "data-value")).isZero();
            assertThat(number(row(before, "orders", "recent"), "data-operations"))
                    .isZero();

            write(server, "orders", 50);
            write(server, "users", 20);
            write(server, "events", 10);
            awaitSampledRate(server, "orders");

            String after = browser.dumpDom(url, VIRTUAL_MILLIS);
            String orders = row(after, "orders", "recent");
            assertThat(number(orders, "data-value")).isEqualTo(50);
            assertThat(orders).contains(">50<");
            assertThat(number(orders, "data-operations")).isEqualTo(50);
            assertThat(Double.parseDouble(attribute(orders, "data-peak")))
                    .as("the chart has a rate above zero")
                    .isPositive();
            assertThat(orders).contains("<polyline");
            assertThat(number(row(after, "users", "bloom"), "data-value")).isPositive();
            assertThat(number(row(after, "events", "exact"), "data-operations")).isEqualTo(10);
        }
    }

    @Test
    void withAPasswordThePageShowsNothingUntilTheBrowserHasIt() throws Exception {
        HeadlessChromium browser = new HeadlessChromium(browserDir);
        try (TestServer server = TestServer.start(dataDir, b -> b.password("s3cret"))) {
            HttpResponse<String> created = CLIENT.send(
                    HttpRequest.newBuilder(uri(server, "/namespaces/guarded"))
                            .header("Authorization", "Bearer s3cret")
                            .PUT(HttpRequest.BodyPublishers.ofString(
                                    "{\"kind\":\"recent\",\"params\":{\"keys\":\"1000\"}}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            int port = server.httpPort();

            // headless, the browser cannot ask for the password: the refused page stays empty
            String refused = browser.dumpDom("http://127.0.0.1:" + port + "/", VIRTUAL_MILLIS);
            assertThat(refused).doesNotContain("deja status", "guarded", "data-namespace");
            String wrong = browser.dumpDom("http://viewer:wrong@127.0.0.1:" + port + "/", VIRTUAL_MILLIS);
            assertThat(wrong).doesNotContain("deja status", "guarded", "data-namespace");

            String shown = browser.dumpDom("http://viewer:s3cret@127.0.0.1:" + port + "/", VIRTUAL_MILLIS);
            assertThat(text(shown, "state"))
                    .as("the page's own requests to the API carried the password")
                    .startsWith("updated");
            assertThat(row(shown, "guarded", "recent")).contains(">recent<");
        }
    }

    private static void create(TestServer server, String name, String body) throws Exception {
        HttpResponse<String> created = CLIENT.send(
                HttpRequest.newBuilder(uri(server, "/namespaces/" + name))
                        .PUT(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }

    private static void write(TestServer server, String namespace, int keys) throws Exception {
        String lines = IntStream.range(0, keys)
                .mapToObj(i -> "00000000-0000-4000-8000-" + String.format("%012d", i))
                .collect(Collectors.joining("\n"));
        HttpResponse<String> written = CLIENT.send(
                HttpRequest.newBuilder(uri(server, "/batch?op=checkthenadd&ns=" + namespace))
                        .POST(HttpRequest.BodyPublishers.ofString(lines))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
    }

    /** Waits until the sampler has charted a rate above zero for the namespace (a sample every few seconds). */
    private static void awaitSampledRate(TestServer server, String namespace) throws Exception {
        for (int attempt = 0; attempt < 600; attempt++) {
            JsonNode activity = JSON.readTree(CLIENT.send(
                            HttpRequest.newBuilder(uri(server, "/activity")).build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body());
            for (JsonNode rate : activity.path("namespaces").path(namespace).path("perSecond")) {
                if (rate.asDouble() > 0) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no rate above zero sampled for " + namespace + " within 30 s");
    }

    private static URI uri(TestServer server, String path) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + path);
    }

    /** The text of the element with this id. */
    private static String text(String dom, String id) {
        Matcher m = Pattern.compile("id=\"" + id + "\"[^>]*>([^<]*)<").matcher(dom);
        assertThat(m.find()).as("element #%s in:%n%s", id, dom).isTrue();
        return m.group(1);
    }

    /** The HTML of the namespace's table row, which must be there with that kind. */
    private static String row(String dom, String namespace, String kind) {
        Matcher m = Pattern.compile(
                        "<tr data-namespace=\"" + Pattern.quote(namespace) + "\" data-kind=\"" + kind + "\">(.*?)</tr>")
                .matcher(dom);
        assertThat(m.find())
                .as("a row for %s (%s) in:%n%s", namespace, kind, dom)
                .isTrue();
        return m.group(1);
    }

    private static String attribute(String html, String name) {
        Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(html);
        assertThat(m.find()).as("%s in %s", name, html).isTrue();
        return m.group(1);
    }

    private static long number(String html, String attribute) {
        return Long.parseLong(attribute(html, attribute));
    }
}
