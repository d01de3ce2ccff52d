/**
 * De-duplication of a Kafka topic as a Kafka Streams step: {@link dev.deja.kafka.Dedup} and its builder, with where
 * ids come from ({@link dev.deja.kafka.IdSource}), which clock places them in the window
 * ({@link dev.deja.kafka.WindowClock}) and where duplicates and records without an id go
 * ({@link dev.deja.kafka.Route}), and which state store holds the ids ({@link dev.deja.kafka.StoreKind}). The rest of
 * the package is the step's workings: the two stores' use ({@code SeenIds}: {@code ExactStateStore} with its batched
 * changelog, {@code SeenWindow} over Kafka's window store), the processors, the repartition by id and the metrics.
 */
package dev.deja.kafka;
