package dev.deja.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * HTTP authentication: with a password, every endpoint but {@code /health} needs
 * {@code Authorization: Bearer <password>} (RFC 6750).
 */
final class BearerAuth {

    private final byte[] password;

    /** Authentication against {@code password}; none when it is null. */
    BearerAuth(String password) {
        this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
    }

    /** The 401 a request to {@code path} with this Authorization header gets, or null when it may go on. */
    HttpProblem refusal(String path, String authorization) {
        if (password == null || path.equals("/health")) {
            return null;
        }
        String token = bearerToken(authorization);
        if (authorized(token)) {
            return null;
        }
        // RFC 6750 (3.1): a request with no bearer token gets the challenge alone, one with a wrong token the
        // challenge with error="invalid_token"
        return token == null
                ? unauthorized("this server needs the header 'Authorization: Bearer <password>'", "")
                : unauthorized("the bearer token is not this server's password", ", error=\"invalid_token\"");
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
}
