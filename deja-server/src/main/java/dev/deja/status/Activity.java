package dev.deja.status;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operations per second of each namespace over the last {@link #SAMPLES} sampling intervals: a ring of rates per
 * namespace, written by the sampler and read by the HTTP API. Memory is bounded: {@code SAMPLES} doubles per
 * namespace, and a namespace's history goes when the namespace does.
 */
public final class Activity {

    /** Samples kept per namespace. */
    public static final int SAMPLES = 120;

    private final long intervalMillis;
    private final Map<String, Ring> rings = new LinkedHashMap<>();

    /** An empty history sampled every {@code intervalMillis}. */
    Activity(long intervalMillis) {
        this.intervalMillis = intervalMillis;
    }

    /** How often a sample is taken, in milliseconds. */
    public long intervalMillis() {
        return intervalMillis;
    }

    /** Every namespace's history, by name, in the order they were first sampled. */
    public synchronized Map<String, History> histories() {
        Map<String, History> histories = new LinkedHashMap<>();
        rings.forEach((name, ring) -> histories.put(name, ring.history()));
        return histories;
    }

    /**
     * Records one sample: each namespace's operation count, {@code elapsedNanos} after the previous sample. A
     * namespace not seen before (or another one under a known name: deleted and created again) counted from zero
     * when it was opened, since the previous sample, so its first rate is its count over the interval; one no longer
     * there is dropped with its history.
     */
    synchronized void record(Map<String, Count> counts, long elapsedNanos) {
        rings.keySet().retainAll(counts.keySet());
        counts.forEach((name, count) -> {
            Ring ring = rings.get(name);
            if (ring == null || !ring.namespace.equals(count.namespace())) { // a Namespace is equal only to itself
                ring = new Ring(count.namespace());
                rings.put(name, ring);
            }
            ring.add(count.operations(), elapsedNanos);
        });
    }

    /**
     * A namespace's operation count at a sample.
     *
     * @param namespace  the namespace object itself, which tells a namespace created again under its old name apart
     * @param operations its operations so far
     */
    record Count(Object namespace, long operations) {}

    /**
     * One namespace's history.
     *
     * @param operations  keys read, written or forgotten since the namespace was opened (or the server started), at
     *                    the last sample
     * @param perSecond   operations per second in each interval, oldest first, at most {@link #SAMPLES}
     */
    public record History(long operations, List<Double> perSecond) {}

    /** One namespace's ring of rates. */
    private static final class Ring {
        private final Object namespace;
        private final double[] rates = new double[SAMPLES];
        private int next;
        private int size;
        private long last;

        Ring(Object namespace) {
            this.namespace = namespace;
        }

        void add(long operations, long elapsedNanos) {
            rates[next] = elapsedNanos <= 0 ? 0 : (operations - last) * 1e9 / elapsedNanos;
            next = (next + 1) % SAMPLES;
            size = Math.min(size + 1, SAMPLES);
            last = operations;
        }

        History history() {
            List<Double> ordered = new ArrayList<>(size);
            int first = (next - size + SAMPLES) % SAMPLES;
            for (int i = 0; i < size; i++) {
                ordered.add(rates[(first + i) % SAMPLES]);
            }
            return new History(last, Collections.unmodifiableList(ordered));
        }
    }
}
