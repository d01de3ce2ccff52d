package dev.deja.kafka;

/** A record's value with the operator's {@link Outcome}, between the operator and the branches that route it. */
record Judged<V>(Outcome outcome, V value) {}
