package dev.deja.namespace;

import dev.deja.background.SerialWork;
import dev.deja.exact.threads.ExactThreads;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops namespaces whose expiry ({@code EXPIRE} on a filter's name) has come, on the shared maintenance threads: while
 * any expiry is set it looks at the earliest at least once a second, and it is woken whenever one is set, so an
 * expired namespace goes within a second whether or not anyone uses it. Commands on a namespace past its expiry treat
 * it as gone meanwhile ({@link #expired}).
 */
final class NamespaceExpiry {

    private static final Logger log = LoggerFactory.getLogger(NamespaceExpiry.class);
    private static final long CHECK_EVERY_MILLIS = 1_000;

    private final Supplier<List<Namespace>> namespaces;
    private final Consumer<String> drop;
    private final SerialWork work;

    /** Sweeps {@code namespaces}, dropping each expired one by name with {@code drop}. */
    NamespaceExpiry(Supplier<List<Namespace>> namespaces, Consumer<String> drop) {
        this.namespaces = namespaces;
        this.drop = drop;
        this.work = ExactThreads.maintenance("namespace expiry", this::sweep);
    }

    /**
     * Sets when the whole namespace is dropped, recorded in its metadata first so that it survives a restart
     * ({@link Namespace#NO_EXPIRY} removes it).
     *
     * @return false, changing nothing, when the time has already passed: the caller drops the namespace now
     * @throws IllegalArgumentException for {@code default}, which is never dropped
     */
    boolean set(Namespace namespace, long atMillis) throws IOException {
        if (namespace.name().equals(Namespace.DEFAULT)) {
            throw new IllegalArgumentException("namespace 'default' cannot expire: it is never dropped");
        }
        if (atMillis != Namespace.NO_EXPIRY && atMillis <= System.currentTimeMillis()) {
            return false;
        }
        new NamespaceMetadata(namespace.kind(), namespace.parameters(), atMillis)
                .write(namespace.dir(), namespace.name());
        namespace.expiresAtMillis(atMillis);
        wake();
        return true;
    }

    /** Whether the namespace's expiry has passed. */
    static boolean expired(Namespace namespace, long nowMillis) {
        long at = namespace.expiresAtMillis();
        return at != Namespace.NO_EXPIRY && at <= nowMillis;
    }

    void start() {
        work.start(0);
    }

    /** Looks again now: an expiry was set or changed. */
    void wake() {
        work.wake();
    }

    void stop() {
        work.stop();
    }

    /** Drops the expired namespaces; returns the nanoseconds until the next expiry, or idle when none is set. */
    private long sweep() {
        long now = System.currentTimeMillis();
        long next = Long.MAX_VALUE;
        for (Namespace namespace : namespaces.get()) {
            long at = namespace.expiresAtMillis();
            if (at == Namespace.NO_EXPIRY) {
                continue;
            }
            if (at <= now) {
                try {
                    drop.accept(namespace.name());
                    log.info("namespace '{}' expired and was dropped", namespace.name());
                } catch (RuntimeException e) {
                    log.warn("namespace '{}' expired but could not be dropped; retrying", namespace.name(), e);
                    next = Math.min(next, now + 1_000);
                }
            } else {
                next = Math.min(next, at);
            }
        }
        if (next == Long.MAX_VALUE) {
            return SerialWork.IDLE;
        }
        // at most a second apart while any expiry is set: a queued run keeps its time when woken, and an expiry set
        // meanwhile may come sooner
        return TimeUnit.MILLISECONDS.toNanos(Math.clamp(next - now, 1, CHECK_EVERY_MILLIS));
    }
}
