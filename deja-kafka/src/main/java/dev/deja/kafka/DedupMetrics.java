package dev.deja.kafka;

import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.Value;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The operator's counters, registered with Kafka Streams' own metrics (group {@value DedupMetricNames#GROUP}, tags
 * {@code task-id} and {@code store}), so that whatever reports Kafka Streams' metrics (JMX, Micrometer's binder)
 * reports them too.
 */
final class DedupMetrics {

    private final StreamsMetrics metrics;
    private final Sensor unique;
    private final Sensor retries;
    private final Sensor duplicates;
    private final Sensor missingIds;
    private final Sensor effectiveWindow;
    private final Sensor idsHeld;
    /** The values the gauges last recorded; none was recorded while they hold {@link Long#MIN_VALUE}. */
    private long lastEffectiveWindowMs = Long.MIN_VALUE;

    private long lastIdsHeld = Long.MIN_VALUE;

    DedupMetrics(StreamsMetrics metrics, TaskId task, String store) {
        this.metrics = metrics;
        Map<String, String> tags = Map.of("task-id", task.toString(), "store", store);
        String prefix = "deja." + store + "." + task + ".";
        this.unique = counter(prefix, DedupMetricNames.UNIQUE, "records passed on as first copies", tags);
        this.retries = counter(prefix, DedupMetricNames.RETRIES, "records read again under the same owner", tags);
        this.duplicates = counter(prefix, DedupMetricNames.DUPLICATES, "records found to be duplicates", tags);
        this.missingIds = counter(prefix, DedupMetricNames.MISSING_IDS, "records without an id", tags);
        this.effectiveWindow =
                gauge(prefix, DedupMetricNames.EFFECTIVE_WINDOW, "how far back ids are held, in ms", tags);
        this.idsHeld = gauge(prefix, DedupMetricNames.IDS_HELD, "ids held, when a cap is set (-1 otherwise)", tags);
    }

    void unique() {
        unique.record();
    }

    void retry() {
        retries.record();
    }

    void duplicate() {
        duplicates.record();
    }

    void missingId() {
        missingIds.record();
    }

    /**
     * Sets the two gauges. Each is recorded only when its value changes: a gauge shows the last value recorded, and a
     * recording takes the sensor's lock and reads the clock, which every record would otherwise pay for twice.
     */
    void held(long effectiveWindowMs, long ids) {
        if (effectiveWindowMs != lastEffectiveWindowMs) {
            lastEffectiveWindowMs = effectiveWindowMs;
            effectiveWindow.record((double) effectiveWindowMs);
        }
        if (ids != lastIdsHeld) {
            lastIdsHeld = ids;
            idsHeld.record((double) ids);
        }
    }

    void close() {
        for (Sensor sensor : new Sensor[] {unique, retries, duplicates, missingIds, effectiveWindow, idsHeld}) {
            metrics.removeSensor(sensor);
        }
    }

    private Sensor counter(String prefix, String name, String description, Map<String, String> tags) {
        Sensor sensor = metrics.addSensor(prefix + name, Sensor.RecordingLevel.INFO);
        sensor.add(new MetricName(name, DedupMetricNames.GROUP, description, tags), new CumulativeCount());
        return sensor;
    }

    private Sensor gauge(String prefix, String name, String description, Map<String, String> tags) {
        Sensor sensor = metrics.addSensor(prefix + name, Sensor.RecordingLevel.INFO);
        sensor.add(new MetricName(name, DedupMetricNames.GROUP, description, tags), new Value());
        return sensor;
    }
}
