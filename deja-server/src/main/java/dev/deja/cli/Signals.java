package dev.deja.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs the SIGUSR1 handler (seed 001: snapshot on USR1). It uses {@code sun.misc.Signal}, a JDK-internal API
 * (module jdk.unsupported) that has been stable since JDK 1.2 and is the only way to catch a signal other than
 * the shutdown ones in Java; on a platform without USR1 the handler is simply not installed.
 */
final class Signals {

    private static final Logger log = LoggerFactory.getLogger(Signals.class);

    private Signals() {}

    static void onUsr1(Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("USR1"), signal -> action.run());
        } catch (IllegalArgumentException e) {
            log.info("SIGUSR1 is not available here; snapshot with DJ.SNAPSHOT or POST /namespaces/{name}/snapshot");
        }
    }
}
