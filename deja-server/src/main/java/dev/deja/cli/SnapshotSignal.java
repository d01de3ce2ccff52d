package dev.deja.cli;

import dev.deja.server.DejaServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What SIGUSR1 does: snapshot every namespace in the background. The handler is installed before the server starts,
 * since the signal's default action would end the process while the namespaces load; a signal received then is
 * remembered and its snapshot taken once the server has started.
 */
final class SnapshotSignal {

    private static final Logger log = LoggerFactory.getLogger(SnapshotSignal.class);

    private DejaServer server;
    private boolean askedWhileStarting;

    /** The signal arrived (on the JVM's signal thread). */
    synchronized void received() {
        if (server != null) {
            server.context().snapshotInBackground(null);
        } else if (!askedWhileStarting) {
            askedWhileStarting = true;
            log.info("SIGUSR1 while the namespaces load: they are snapshotted once the server has started");
        }
    }

    /** The server is serving: signals snapshot it from now on, and one received while it started does now. */
    synchronized void started(DejaServer started) {
        server = started;
        if (askedWhileStarting) {
            server.context().snapshotInBackground(null);
        }
    }
}
