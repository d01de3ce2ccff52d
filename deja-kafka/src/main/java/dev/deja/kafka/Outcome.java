package dev.deja.kafka;

/** What the operator made of one record, and so where it goes. */
enum Outcome {
    /** A first copy (or a retry of one, or a record without id that passes): goes downstream. */
    UNIQUE,
    /** A duplicate bound for the duplicates topic. */
    DUPLICATE,
    /** A record without an id bound for the missing-id topic. */
    MISSING_ID,
    /** A record to drop: a duplicate, or a record without an id, when their route drops them. */
    DROPPED
}
