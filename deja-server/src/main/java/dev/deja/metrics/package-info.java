/**
 * The server's Prometheus metrics ({@link dev.deja.metrics.ServerMetrics}): operations and errors per front end,
 * open connections, request and namespace memory, and per namespace its key count, memory and live error estimate.
 */
package dev.deja.metrics;
