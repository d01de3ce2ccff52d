/**
 * {@code deja serve} and {@code deja size}: the HTTP and RESP front ends, namespaces, metrics and the command line
 * (docs/DESIGN.md section 6). An application, not a library: it exports no package; its API is its protocols
 * (docs/PROTOCOL.md) and its command line ({@code dev.deja.cli.Main}).
 */
@SuppressWarnings("requires-automatic") // Micrometer ships no module descriptor; its manifest names its modules
module dev.deja.server {
    requires dev.deja.core;
    requires dev.deja.options;
    requires dev.deja.rocksdb;
    requires com.fasterxml.jackson.databind;
    requires info.picocli;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.http;
    requires io.netty.codec.redis;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    // the epoll transport (Transport); its native library is loaded from the class path where it runs
    requires io.netty.transport.classes.epoll;
    requires java.management;
    // the machine's physical memory, which bounds the default memory budget of namespaces (MemoryBudget)
    requires jdk.management;
    // SIGHUP and SIGTERM handlers (Signals) reach sun.misc.Signal, which this module exports
    requires jdk.unsupported;
    requires micrometer.core;
    requires micrometer.registry.prometheus;
    requires org.slf4j;

    // picocli reads and sets the annotated fields of the commands
    opens dev.deja.cli to
            info.picocli;
}
