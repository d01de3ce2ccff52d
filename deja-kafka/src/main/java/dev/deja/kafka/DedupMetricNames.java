package dev.deja.kafka;

/**
 * The names of the metrics {@link Dedup} registers with Kafka Streams, per task (tags {@code task-id} and
 * {@code store}), so that whatever reports Kafka Streams' metrics (JMX, Micrometer's Kafka Streams binder) reports
 * them too.
 */
public final class DedupMetricNames {

    /** The metrics group. */
    public static final String GROUP = "deja-dedup-metrics";
    /** Records passed on as first copies. */
    public static final String UNIQUE = "unique-total";
    /** Records read again under the owner their id was stored with, passed on again. */
    public static final String RETRIES = "retries-total";
    /** Records found to be duplicates (dropped or sent to the duplicates topic). */
    public static final String DUPLICATES = "duplicates-total";
    /** Records without an id, whatever their route. */
    public static final String MISSING_IDS = "missing-ids-total";
    /**
     * How far back ids are answered from, in ms: the window, or less when the cap, or a store younger than the
     * window, cuts it.
     */
    public static final String EFFECTIVE_WINDOW = "effective-window-ms";
    /** The ids the task holds when a cap is set; -1 otherwise. */
    public static final String IDS_HELD = "ids-held";

    private DedupMetricNames() {}
}
