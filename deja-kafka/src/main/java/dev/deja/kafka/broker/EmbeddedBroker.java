package dev.deja.kafka.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A single Kafka broker in this JVM, for the demo and for tests: KRaft in combined broker and controller mode,
 * listening on 127.0.0.1 only, on free ports, with its data in a directory of its own that {@link #close()} deletes.
 * Internal topics have one replica, as one broker allows.
 */
public final class EmbeddedBroker implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final KafkaRaftServer server;

    private EmbeddedBroker(Path dir, int port, KafkaRaftServer server) {
        this.dir = dir;
        this.port = port;
        this.server = server;
    }

    /** Formats a new log directory under a temporary directory and starts a broker on it. */
    public static EmbeddedBroker start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("deja-kafka-broker");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker's temporary directory", e);
        }
        int port = freePort();
        int controllerPort = freePort();
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("log.dirs", dir.resolve("logs").toString());
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "4");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "4");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("auto.create.topics.enable", "false");
        props.put("num.partitions", "1");
        format(dir, props);
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, /* doLog= */ false), Time.SYSTEM);
        server.startup();
        return new EmbeddedBroker(dir, port, server);
    }

    /** The address clients connect to: {@code 127.0.0.1:port}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Stops the broker and deletes its data. */
    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the broker's data in " + dir, e);
        }
    }

    private static void format(Path dir, Properties props) {
        Path config = dir.resolve("server.properties");
        try (OutputStream out = Files.newOutputStream(config)) {
            props.store(out, "deja-kafka embedded broker");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int status;
        try (PrintStream print = new PrintStream(output, /* autoFlush= */ true, StandardCharsets.UTF_8)) {
            status = StorageTool.execute(
                    new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()}, print);
        }
        if (status != 0) {
            throw new IllegalStateException(
                    "formatting the broker's storage failed: " + output.toString(StandardCharsets.UTF_8));
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
