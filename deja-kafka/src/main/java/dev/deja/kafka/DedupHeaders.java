package dev.deja.kafka;

/**
 * The headers {@link Dedup} writes. A duplicate sent to a topic carries the three {@code deja.first.*} headers naming
 * the first copy of its id; the step's internal headers never reach its output.
 */
public final class DedupHeaders {

    /** The input partition of the first copy, in decimal ASCII. */
    public static final String FIRST_PARTITION = "deja.first.partition";
    /** The input offset of the first copy, in decimal ASCII. */
    public static final String FIRST_OFFSET = "deja.first.offset";
    /** When the first copy was recorded (per the {@link WindowClock}), epoch milliseconds in decimal ASCII. */
    public static final String FIRST_TIMESTAMP = "deja.first.timestamp";

    /** Carries a record's own key across the repartition topic. */
    static final String ORIGINAL_KEY = "deja.key";
    /** Carries a record's input partition and offset (its owner) across the repartition topic. */
    static final String SOURCE = "deja.source";

    private DedupHeaders() {}
}
