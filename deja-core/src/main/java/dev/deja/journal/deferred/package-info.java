/**
 * Journal writes deferred to the end of a batch of calls made on one thread
 * ({@link dev.deja.journal.deferred.DeferredWrites}): a server's event loop runs the commands of every client it
 * read from, then writes each journal once. Not part of deja-core's API: the package is exported only to deja-server.
 */
package dev.deja.journal.deferred;
