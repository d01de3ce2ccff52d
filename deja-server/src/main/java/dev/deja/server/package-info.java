/**
 * What both front ends share: the server's configuration ({@link dev.deja.server.ServerConfig}) and its start and
 * stop ({@link dev.deja.server.DejaServer}), the context every handler reaches the namespaces and metrics through,
 * the limits applied before a request is decoded (connections, request memory, request time), and the handler that
 * runs the requests of one read as one batch and writes their journal records together
 * ({@link dev.deja.server.PipelinedHandler}).
 */
package dev.deja.server;
