package dev.deja.kafka.worker;

import org.apache.kafka.streams.StreamsConfig;

/** The processing guarantee the worker runs under, as {@code --guarantee} names it. */
enum Guarantee {
    /** Kafka Streams' {@code exactly_once_v2}: output, state and input offsets commit together. */
    EXACTLY_ONCE("exactly-once", StreamsConfig.EXACTLY_ONCE_V2),
    /** Kafka Streams' {@code at_least_once}: a record read again after a crash is a retry, passed on again. */
    AT_LEAST_ONCE("at-least-once", StreamsConfig.AT_LEAST_ONCE);

    private final String flag;
    private final String streamsValue;

    Guarantee(String flag, String streamsValue) {
        this.flag = flag;
        this.streamsValue = streamsValue;
    }

    /** The value of Kafka Streams' {@code processing.guarantee}. */
    String streamsValue() {
        return streamsValue;
    }

    /** The guarantee {@code --guarantee} names. */
    static Guarantee of(String flag) {
        for (Guarantee g : values()) {
            if (g.flag.equals(flag)) {
                return g;
            }
        }
        throw new IllegalArgumentException("'" + flag + "' is neither exactly-once nor at-least-once");
    }

    @Override
    public String toString() {
        return flag;
    }
}
