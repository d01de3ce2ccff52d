package dev.deja.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * HTTP authentication: with a password, every endpoint but {@code /health} needs it, either as a bearer token
 * ({@code Authorization: Bearer <password>}, RFC 6750), as programs send it, or as HTTP Basic credentials with any
 * user name ({@code Authorization: Basic base64(user:password)}, RFC 7617), as a browser sends what a person typed.
 * The status page's paths challenge for Basic, so that a browser asks its user for the password; the API's challenge
 * for a bearer token, as before.
 */
final class HttpAuth {

    private final byte[] password;

    /** Authentication against {@code password}; none when it is null. */
    HttpAuth(String password) {
        this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
    }

    /** The 401 a request to {@code path} with this Authorization header gets, or null when it may go on. */
    HttpProblem refusal(String path, String authorization) {
        if (password == null || path.equals("/health")) {
            return null;
        }
        String token = bearerToken(authorization);
        byte[] basicPassword = basicPassword(authorization);
        if (authorized(token) || (basicPassword != null && MessageDigest.isEqual(password, basicPassword))) {
            return null;
        }
        if (StatusPage.serves(path)) {
            // a browser asks its user for a user name and password on this challenge, and sends them on the page's
            // requests to the API too
            return new HttpProblem(
                            HttpResponseStatus.UNAUTHORIZED,
                            "this server needs its password (HTTP Basic: any user name, and the password)")
                    .withHeader("WWW-Authenticate", "Basic realm=\"deja\", charset=\"UTF-8\"");
        }
        // RFC 6750 (3.1): a request with no bearer token gets the challenge alone, one with a wrong token the
        // challenge with error="invalid_token"
        if (token != null) {
            return unauthorized("the bearer token is not this server's password", ", error=\"invalid_token\"");
        }
        return basicPassword != null
                ? unauthorized("the Basic credentials' password is not this server's password", "")
                : unauthorized("this server needs the header 'Authorization: Bearer <password>'", "");
    }

    private boolean authorized(String token) {
        // Netty reads a header one char per byte: the token's bytes are the ones the client sent, the password's
        // UTF-8 bytes (as in RESP's AUTH) whatever its characters
        return token != null && MessageDigest.isEqual(password, token.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static HttpProblem unauthorized(String message, String challengeParameters) {
        return new HttpProblem(HttpResponseStatus.UNAUTHORIZED, message)
                .withHeader("WWW-Authenticate", "Bearer realm=\"deja\"" + challengeParameters);
    }

    /** The token of an {@code Authorization: Bearer <token>} header, or null when there is none. */
    private static String bearerToken(String header) {
        return header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)
                ? null
                : header.substring(7).strip();
    }

    /**
     * The password's bytes of an {@code Authorization: Basic <base64(user:password)>} header (the user name is
     * ignored), or null when there are none: no such header, bad base64 or no colon.
     */
    private static byte[] basicPassword(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        byte[] credentials;
        try {
            credentials = Base64.getDecoder().decode(header.substring(6).strip());
        } catch (IllegalArgumentException e) {
            return null;
        }
        for (int i = 0; i < credentials.length; i++) {
            if (credentials[i] == ':') {
                byte[] password = new byte[credentials.length - i - 1];
                System.arraycopy(credentials, i + 1, password, 0, password.length);
                return password;
            }
        }
        return null;
    }
}
