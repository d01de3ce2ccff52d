/**
 * What the status page shows beyond the namespaces' own info, gathered off the request path: the operations per
 * second of each namespace over the last minutes ({@link dev.deja.status.Activity}, sampled by
 * {@link dev.deja.status.StatusSampler}) and the disk the data dir takes ({@link dev.deja.status.DiskUsage}).
 */
package dev.deja.status;
