/**
 * {@code deja kafka}: the command line ({@code KafkaMain}, picocli) of the de-dup worker ({@code run}: a Kafka
 * Streams application around {@link dev.deja.kafka.Dedup}, its metrics on /metrics and /health) and of its
 * demonstration ({@code demo}, on an in-process broker).
 */
package dev.deja.kafka.worker;
