/**
 * What the server's tests share: an in-process server on free loopback ports ({@link dev.deja.testing.TestServer}),
 * raw RESP and HTTP reads off a socket, racing connections, a store kind for fixtures, and a full disk for a child
 * process ({@link dev.deja.testing.FileSizeLimit}).
 */
package dev.deja.testing;
