package dev.deja.metrics;

import dev.deja.exact.ExactMetrics;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceInfo;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.seen.ErrorEstimate;
import dev.deja.server.RequestMemory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The server's Prometheus metrics: operations and errors per front end, open connections, and per namespace
 * its key count, memory and live error estimate (refreshed at each scrape).
 */
public final class ServerMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final NamespaceRegistry namespaces;
    private final Map<CounterKey, Counter> counters = new ConcurrentHashMap<>();
    private final List<NamespaceGauge> namespaceGauges = new ArrayList<>();

    /** Metrics over the given namespaces, open connections and request memory. */
    public ServerMetrics(NamespaceRegistry namespaces, IntSupplier openConnections, RequestMemory requestMemory) {
        this.namespaces = namespaces;
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        Gauge.builder("deja.connections", openConnections, IntSupplier::getAsInt)
                .description("Open client connections, both front ends")
                .register(registry);
        Gauge.builder("deja.request.memory.held.bytes", requestMemory, RequestMemory::held)
                .description("Bytes of requests received and not yet executed, beyond each connection's allowance,"
                        + " held from the request memory")
                .register(registry);
        Gauge.builder("deja.request.memory.limit.bytes", requestMemory, RequestMemory::limit)
                .description("The request memory (--request-memory)")
                .register(registry);
        registryGauge(
                "deja.namespace.memory.limit.bytes",
                "Heap the namespaces may reserve together (--memory-limit)",
                NamespaceRegistry::memoryLimit);
        registryGauge(
                "deja.namespace.memory.reserved.bytes",
                "Heap the namespaces reserved: what their stores take when full",
                NamespaceRegistry::memoryReserved);
        registryGauge(
                "deja.namespace.native.memory.limit.bytes",
                "Native memory the exact namespaces may reserve together (--native-memory-limit)",
                NamespaceRegistry::nativeMemoryLimit);
        registryGauge(
                "deja.namespaces.damaged",
                "Namespaces not served because their files could not be opened; DJ.RESET or POST"
                        + " /namespaces/{name}/reset brings one back unless its metadata cannot be read, and DJ.DROP"
                        + " deletes one",
                r -> r.damaged().size());
        registryGauge(
                "deja.namespace.native.memory.reserved.bytes",
                "Native memory the exact namespaces reserved: RocksDB block caches and memtables",
                NamespaceRegistry::nativeMemoryReserved);
        gauge(
                "deja.namespace.keys",
                "Keys recorded in the namespace",
                s -> s.info().stats().insertions());
        gauge(
                "deja.namespace.writes.failing",
                "1 while the namespace refuses writes because its disk does not take"
                        + " them (full, or opened read-only for that reason); reads are answered meanwhile",
                s -> s.writesFailing() ? 1 : 0);
        gauge(
                "deja.namespace.memory.bytes",
                "Memory the namespace's store occupies (exact: its files on disk)",
                s -> s.info().stats().memoryBytes());
        gauge(
                "deja.namespace.bloom.fill.ratio",
                "Fraction of the bloom filter's bits that are set",
                s -> s.info().stats().estimate() instanceof ErrorEstimate.Bloom b ? b.fillRatio() : Double.NaN);
        gauge(
                "deja.namespace.bloom.fpp",
                "False-positive probability a new key meets now",
                s -> s.info().stats().estimate() instanceof ErrorEstimate.Bloom b ? b.currentFpp() : Double.NaN);
        gauge(
                "deja.exact.window.seconds",
                "Age of the oldest key an exact namespace still holds",
                s -> s.exact() == null
                        ? Double.NaN
                        : s.exact().effectiveWindow().toMillis() / 1000.0);
        gauge(
                "deja.exact.window.below.minimum",
                "1 when the disk bound has shrunk an exact namespace's window below"
                        + " its minWindow (keys younger than the window are being dropped)",
                s -> s.exact() == null ? Double.NaN : s.exact().windowBelowMinimum() ? 1 : 0);
        gauge(
                "deja.exact.generations",
                "Time slices an exact namespace holds",
                s -> s.exact() == null ? Double.NaN : s.exact().generations());
        gauge(
                "deja.exact.filter.bytes",
                "Memory of an exact namespace's in-memory key filters",
                s -> s.exact() == null ? Double.NaN : s.exact().filterBytes());
        gauge(
                "deja.exact.filters.loading",
                "Generations of an exact namespace whose key filter is still being read"
                        + " back after a restart without kept filters, as after a crash"
                        + " (lookups in them are slower meanwhile)",
                s -> s.exact() == null ? Double.NaN : s.exact().filtersLoading());
    }

    /** Counts {@code keys} operations of one command on one front end. */
    public void operations(String frontEnd, String command, int keys) {
        operationsCounter(frontEnd, command).increment(keys);
    }

    /** The counter {@link #operations} increments, for a caller that keeps it instead of looking it up each time. */
    public Counter operationsCounter(String frontEnd, String command) {
        return counter(
                "deja.operations",
                "Keys processed, by front end and command",
                "frontend",
                frontEnd,
                "command",
                command);
    }

    /** Counts one request answered with an error. */
    public void error(String frontEnd, String reason) {
        counter(
                        "deja.errors",
                        "Requests answered with an error, by front end and reason",
                        "frontend",
                        frontEnd,
                        "reason",
                        reason)
                .increment();
    }

    /** The Prometheus text exposition of every metric. */
    public String scrape() {
        List<Sample> samples = namespaces.list().stream().map(Sample::of).toList();
        synchronized (namespaceGauges) {
            for (NamespaceGauge gauge : namespaceGauges) {
                gauge.multi.register(
                        samples.stream()
                                .filter(sample -> !Double.isNaN(gauge.value.applyAsDouble(sample)))
                                .map(sample -> MultiGauge.Row.of(
                                        Tags.of(
                                                "namespace",
                                                sample.info().name(),
                                                "kind",
                                                sample.info().kind()),
                                        gauge.value.applyAsDouble(sample)))
                                .toList(),
                        true);
            }
        }
        return registry.scrape();
    }

    /** One namespace's numbers at one scrape, read once for every gauge. */
    private record Sample(NamespaceInfo info, ExactMetrics exact, boolean writesFailing) {
        static Sample of(Namespace namespace) {
            return new Sample(
                    namespace.info(),
                    namespace.kind().name().equals("exact")
                            ? namespace.exactStore().metrics()
                            : null,
                    namespace.durableStore().writesFailing());
        }
    }

    /** A server-wide gauge read from the namespace registry. */
    private void registryGauge(String name, String description, ToDoubleFunction<NamespaceRegistry> value) {
        Gauge.builder(name, namespaces, value).description(description).register(registry);
    }

    private void gauge(String name, String description, ToDoubleFunction<Sample> value) {
        namespaceGauges.add(new NamespaceGauge(
                MultiGauge.builder(name).description(description).register(registry), value));
    }

    private Counter counter(String name, String description, String tag1, String value1, String tag2, String value2) {
        // cached because the registry's own lookup allocates an id per call, and this runs per request; the key
        // is a small record rather than a string so that a hit builds no string and no tags
        CounterKey key = new CounterKey(name, value1, value2);
        Counter counter = counters.get(key);
        return counter != null
                ? counter
                : counters.computeIfAbsent(
                        key,
                        k -> Counter.builder(name)
                                .description(description)
                                .tags(Tags.of(tag1, value1, tag2, value2))
                                .register(registry));
    }

    private record CounterKey(String name, String value1, String value2) {}

    private record NamespaceGauge(MultiGauge multi, ToDoubleFunction<Sample> value) {}
}
