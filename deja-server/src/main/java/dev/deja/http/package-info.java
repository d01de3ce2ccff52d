/**
 * The HTTP front end: the pipeline of each connection ({@link dev.deja.http.HttpFrontEnd}), the API that routes a
 * request to the key endpoints ({@code /check}, {@code /add}, {@code /checkthenadd}, {@code /forget},
 * {@code /batch}), the namespace admin endpoints or the server's own ({@code /health}, {@code /info},
 * {@code /metrics}), and the JSON errors every failure is answered with. The protocol is in docs/PROTOCOL.md.
 */
package dev.deja.http;
