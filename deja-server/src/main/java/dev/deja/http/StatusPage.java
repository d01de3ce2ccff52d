package dev.deja.http;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The status page at {@code /}: an HTML page, its script and its style sheet, read once from the jar and served as
 * they are (no build step, nothing fetched from elsewhere, so it works offline). The page reads the JSON API
 * ({@code /info}, {@code /namespaces}, {@code /activity}) every few seconds. Each file carries an entity tag and
 * {@code Cache-Control: no-cache}: a browser keeps it, asks whether it changed, and gets a 304 until the server's
 * jar does.
 */
final class StatusPage {

    private static final Map<String, Asset> ASSETS = Map.of(
            "/", Asset.of("index.html", "text/html; charset=utf-8"),
            "/status.js", Asset.of("status.js", "text/javascript; charset=utf-8"),
            "/status.css", Asset.of("status.css", "text/css; charset=utf-8"));

    /**
     * What the page may load and connect to: this server alone, and no inline script (the page has none), so that
     * nothing a namespace's name holds can run as script.
     */
    private static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
            + " connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private StatusPage() {}

    /** Whether {@code path} is one of the page's files. */
    static boolean serves(String path) {
        return ASSETS.containsKey(path);
    }

    /** The file at {@code path} (one {@link #serves} accepts), or a 304 when the client's copy is this one. */
    static HttpResult serve(HttpCall call) {
        call.allow(HttpMethod.GET, HttpMethod.HEAD);
        call.onlyParameters();
        Asset asset = ASSETS.get(call.path());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("ETag", asset.etag());
        headers.put("Cache-Control", "no-cache");
        headers.put("X-Content-Type-Options", "nosniff");
        if (asset.contentType().startsWith("text/html")) {
            headers.put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
            headers.put("Referrer-Policy", "no-referrer");
        }
        boolean unchanged = call.ifNoneMatch() != null && matches(call.ifNoneMatch(), asset.etag());
        if (unchanged) {
            // the length a 200 would have (RFC 9110, 8.6), which also tells Netty the connection may stay open
            headers.put("Content-Length", Integer.toString(asset.bytes().length));
        }
        return HttpResult.now(new HttpReply(
                unchanged ? HttpResponseStatus.NOT_MODIFIED : HttpResponseStatus.OK,
                asset.contentType(),
                unchanged ? new byte[0] : asset.bytes(),
                headers));
    }

    /** Whether an If-None-Match header names {@code etag} (or is {@code *}), weakly compared (RFC 9110, 13.1.2). */
    static boolean matches(String ifNoneMatch, String etag) {
        for (String tag : ifNoneMatch.split(",", -1)) {
            String given = tag.strip();
            if (given.equals("*") || (given.startsWith("W/") ? given.substring(2) : given).equals(etag)) {
                return true;
            }
        }
        return false;
    }

    /**
     * One file of the page.
     *
     * @param contentType its content type
     * @param bytes       its content
     * @param etag        its strong entity tag: a digest of the content, quoted
     */
    @SuppressWarnings("ArrayRecordComponent") // never compared: read once, served as it is
    private record Asset(String contentType, byte[] bytes, String etag) {

        static Asset of(String name, String contentType) {
            try (InputStream in = StatusPage.class.getResourceAsStream("status/" + name)) {
                if (in == null) {
                    throw new IllegalStateException("the status page's file " + name + " is missing from the jar");
                }
                byte[] bytes = in.readAllBytes();
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
                return new Asset(contentType, bytes, "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\"");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the status page's file " + name, e);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }
    }
}
