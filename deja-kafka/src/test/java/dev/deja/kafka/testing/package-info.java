/** What the deja-kafka tests share: one in-process broker for every test class that needs a real one. */
package dev.deja.kafka.testing;
