/**
 * A Kafka broker inside the JVM ({@link dev.deja.kafka.broker.EmbeddedBroker}: KRaft, 127.0.0.1, free ports, a
 * temporary directory) and the topic creation that waits until topics are usable ({@link
 * dev.deja.kafka.broker.Topics}), for {@code deja kafka demo} and the tests.
 */
package dev.deja.kafka.broker;
