/**
 * The HTTP front end: the pipeline of each connection ({@link dev.deja.http.HttpFrontEnd}), the API that routes a
 * request to the key endpoints ({@code /check}, {@code /add}, {@code /checkthenadd}, {@code /forget},
 * {@code /batch}), the namespace admin endpoints, the server's own ({@code /health}, {@code /info},
 * {@code /metrics}, {@code /activity}) or the status page at {@code /} ({@link dev.deja.http.StatusPage}, its files
 * under {@code status/} in the jar), the password check ({@code HttpAuth}: bearer token or Basic credentials), and
 * the JSON errors every failure is answered with. The protocol is in docs/PROTOCOL.md.
 */
package dev.deja.http;
