package dev.deja.kafka;

import java.util.Objects;

/**
 * Where records of one kind go: dropped, passed on, or sent to a topic. Used for duplicates ({@link #drop()} or
 * {@link #toTopic}) and for records without an id ({@link #pass()}, {@link #drop()} or {@link #toTopic}).
 */
public final class Route {

    /** What happens to the records. */
    public enum Kind {
        /** They are passed on downstream with the unique records. */
        PASS,
        /** They are dropped (and counted). */
        DROP,
        /** They are written to a topic, unchanged except for the headers the operator adds. */
        TOPIC
    }

    private static final Route PASS = new Route(Kind.PASS, "");
    private static final Route DROP = new Route(Kind.DROP, "");

    private final Kind kind;
    private final String topic;

    private Route(Kind kind, String topic) {
        this.kind = kind;
        this.topic = topic;
    }

    /** Pass the records on with the unique ones. */
    public static Route pass() {
        return PASS;
    }

    /** Drop the records. */
    public static Route drop() {
        return DROP;
    }

    /** Write the records to {@code topic}. */
    public static Route toTopic(String topic) {
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("topic must not be blank");
        }
        return new Route(Kind.TOPIC, topic);
    }

    /** What happens to the records. */
    public Kind kind() {
        return kind;
    }

    /** The topic of {@link Kind#TOPIC}; empty otherwise. */
    public String topic() {
        return topic;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Route other && kind == other.kind && topic.equals(other.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, topic);
    }

    @Override
    public String toString() {
        return kind == Kind.TOPIC ? "topic:" + topic : kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
