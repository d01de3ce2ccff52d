package dev.deja.status;

import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples, on a thread of its own every {@link #INTERVAL_MILLIS}, each namespace's operation count into the
 * {@link Activity} and the data dir's {@link DiskUsage}, so that requests for them only read what was gathered.
 */
public final class StatusSampler implements AutoCloseable {

    /** How often a sample is taken: {@link Activity#SAMPLES} of them span ten minutes. */
    public static final long INTERVAL_MILLIS = 5_000;

    private static final Logger log = LoggerFactory.getLogger(StatusSampler.class);

    private final NamespaceRegistry namespaces;
    private final Path dataDir;
    private final Activity activity = new Activity(INTERVAL_MILLIS);
    private final ScheduledExecutorService thread;
    private volatile DiskUsage disk = DiskUsage.UNKNOWN;
    private long lastSampleNanos = System.nanoTime();
    private boolean diskFailureLogged;

    private StatusSampler(NamespaceRegistry namespaces, Path dataDir) {
        this.namespaces = namespaces;
        this.dataDir = dataDir;
        this.thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "deja-status-sampler");
            t.setDaemon(true);
            return t;
        });
    }

    /** Samples the namespaces of {@code namespaces} and the disk of {@code dataDir} from now on, until closed. */
    public static StatusSampler start(NamespaceRegistry namespaces, Path dataDir) {
        StatusSampler sampler = new StatusSampler(namespaces, dataDir);
        ScheduledFuture<?> unused = sampler.thread.scheduleWithFixedDelay(
                sampler::sample, 0, INTERVAL_MILLIS, TimeUnit.MILLISECONDS); // runs until the thread is shut down
        return sampler;
    }

    /** The operations history of every namespace. */
    public Activity activity() {
        return activity;
    }

    /** The data dir's disk use at the last sample; {@code -1} in each field before the first. */
    public DiskUsage disk() {
        return disk;
    }

    private void sample() {
        try {
            long now = System.nanoTime();
            Map<String, Activity.Count> counts = new LinkedHashMap<>();
            for (Namespace namespace : namespaces.list()) {
                counts.put(namespace.name(), new Activity.Count(namespace, namespace.operations()));
            }
            activity.record(counts, now - lastSampleNanos);
            lastSampleNanos = now;
            sampleDisk();
        } catch (RuntimeException e) {
            // a failed sample leaves a gap; the next one is taken all the same
            log.warn("status sample failed", e);
        }
    }

    private void sampleDisk() {
        try {
            disk = DiskUsage.of(dataDir);
            diskFailureLogged = false;
        } catch (IOException e) {
            if (!diskFailureLogged) {
                log.warn("cannot measure the disk use of {}: {}", dataDir, e.toString());
                diskFailureLogged = true;
            }
        }
    }

    /** Stops sampling. */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}
