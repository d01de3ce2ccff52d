package dev.deja.server;

import dev.deja.journal.FsyncPolicy;
import dev.deja.namespace.Durability;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceLimits;
import dev.deja.namespace.NamespaceSpec;
import dev.deja.namespace.StoreKinds;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything a {@link DejaServer} is started with; built with {@link #builder()}, whose defaults are those of
 * {@code deja serve}.
 *
 * @param dataDir                 where namespaces are kept
 * @param bind                    the address both front ends listen on
 * @param httpPort                HTTP port; 0 disables HTTP when {@code ephemeralPorts} is off
 * @param respPort                RESP port; 0 disables RESP when {@code ephemeralPorts} is off
 * @param ephemeralPorts          whether port 0 means "any free port" (tests) rather than "disabled" (the CLI)
 * @param fsync                   when the journal is forced to disk
 * @param password                required by RESP AUTH and as an HTTP bearer token; {@code null} for none
 * @param autoCreate              whether an unknown namespace is created on first use
 * @param allowFlush              whether {@code FLUSHDB} and {@code FLUSHALL} may drop every namespace
 * @param defaultSpec             what the {@code default} namespace and auto-created ones are made of
 * @param kinds                   the store kinds offered
 * @param kvNamespace             the exact namespace Redis key-value commands (SET, GET, ...) address
 * @param kvSpec                  what that namespace is made of when they create it on first use
 * @param snapshotIntervalSeconds seconds between snapshots of a namespace that changed; 0 disables the timer
 * @param maxKeyBytes             largest key accepted
 * @param maxBodyBytes            largest HTTP body and RESP bulk string accepted
 * @param maxBatch                most keys in one batch request or command
 * @param maxHttpConnections      most open HTTP connections; 0 for {@link #defaultConnections()}
 * @param maxRespConnections      most open RESP connections; 0 for {@link #defaultConnections()}
 * @param idleTimeoutSeconds      seconds after which an idle HTTP connection is closed; 0 never
 * @param respIdleTimeoutSeconds  seconds after which an idle RESP connection is closed; 0 never, Redis's default,
 *                                which pooled Redis clients count on
 * @param requestTimeoutSeconds   seconds within which a request must arrive whole once its first byte has; 0 never
 * @param requestMemory           bytes every connection together may hold in requests not yet executed, beyond
 *                                each one's {@link RequestMemory#PER_CONNECTION_ALLOWANCE}; 0 for
 *                                {@link #defaultRequestMemory}
 * @param ioThreads               Netty event loop threads; 0 means one per core but one, at least one
 * @param transport               the event loops' socket layer: epoll, NIO, or {@link Transport#AUTO} for epoll where
 *                                it is available
 */
public record ServerConfig(
        Path dataDir,
        String bind,
        int httpPort,
        int respPort,
        boolean ephemeralPorts,
        FsyncPolicy fsync,
        String password,
        boolean autoCreate,
        boolean allowFlush,
        NamespaceSpec defaultSpec,
        StoreKinds kinds,
        String kvNamespace,
        NamespaceSpec kvSpec,
        int snapshotIntervalSeconds,
        int maxKeyBytes,
        int maxBodyBytes,
        int maxBatch,
        int maxHttpConnections,
        int maxRespConnections,
        int idleTimeoutSeconds,
        int respIdleTimeoutSeconds,
        int requestTimeoutSeconds,
        long requestMemory,
        int ioThreads,
        Transport transport,
        long memoryLimit,
        long nativeMemoryLimit,
        int maxNamespaces) {

    /** The key-value commands' namespace when created on first use: a day's window of keys and small values. */
    public static final String KV_DEFAULT_PARAMS = "window=24h,values=true";

    public static final NamespaceSpec KV_DEFAULT = NamespaceSpec.parse("exact", KV_DEFAULT_PARAMS);

    /**
     * The default namespace's filter: 2^33 bits (1 GiB) and k = 10, for 5e8 keys at 0.1%, the default filter of the
     * bloom HTTP server whose protocol deja follows (Snawoot/bloom).
     */
    public static final NamespaceSpec DEFAULT_FILTER =
            NamespaceSpec.parse("bloom", "bits=8589934592,k=10,capacity=500000000");

    public ServerConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(defaultSpec, "defaultSpec");
        Objects.requireNonNull(kinds, "kinds");
        Objects.requireNonNull(kvNamespace, "kvNamespace");
        Objects.requireNonNull(kvSpec, "kvSpec");
        if (!kvSpec.kind().equals("exact")) {
            throw new IllegalArgumentException(
                    "the key-value namespace must be of kind exact (got " + kvSpec.kind() + ")");
        }
        Objects.requireNonNull(fsync, "fsync");
        checkPort("httpPort", httpPort);
        checkPort("respPort", respPort);
        if (password != null && password.isEmpty()) {
            password = null;
        }
        atLeast("snapshotIntervalSeconds", snapshotIntervalSeconds, 0);
        atLeast("maxKeyBytes", maxKeyBytes, 1);
        atLeast("maxBodyBytes", maxBodyBytes, 1);
        atLeast("maxBatch", maxBatch, 1);
        long largestRequest = maxRequestBytes(maxBodyBytes, maxBatch, maxKeyBytes);
        if (requestMemory < 0) {
            throw new IllegalArgumentException("requestMemory must be >= 0 (got " + requestMemory + ")");
        }
        if (requestMemory == 0) {
            requestMemory = defaultRequestMemory(largestRequest);
        } else if (requestMemory < largestRequest) {
            // the largest request a connection may send could never arrive
            throw new IllegalArgumentException(
                    "requestMemory must be at least the largest request a connection may" + " hold, " + largestRequest
                            + " bytes (maxBodyBytes plus its framing) (got " + requestMemory + ")");
        }
        atLeast("maxHttpConnections", maxHttpConnections, 0);
        atLeast("maxRespConnections", maxRespConnections, 0);
        maxHttpConnections = maxHttpConnections == 0 ? defaultConnections() : maxHttpConnections;
        maxRespConnections = maxRespConnections == 0 ? defaultConnections() : maxRespConnections;
        atLeast("idleTimeoutSeconds", idleTimeoutSeconds, 0);
        atLeast("respIdleTimeoutSeconds", respIdleTimeoutSeconds, 0);
        atLeast("requestTimeoutSeconds", requestTimeoutSeconds, 0);
        if (maxKeyBytes > maxBodyBytes) {
            // a key larger than a body or bulk string could never arrive
            throw new IllegalArgumentException(
                    "maxKeyBytes must be at most maxBodyBytes (" + maxBodyBytes + ") (got " + maxKeyBytes + ")");
        }
        // refused here rather than when the first request uses them
        kinds.get(defaultSpec.kind()).parameters(defaultSpec.parameters());
        kinds.get(kvSpec.kind()).parameters(kvSpec.parameters());
        Namespace.checkName(kvNamespace);
        atLeast("ioThreads", ioThreads, 0);
        Objects.requireNonNull(transport, "transport");
        atLeast("maxNamespaces", maxNamespaces, 1);
        new NamespaceLimits(memoryLimit, nativeMemoryLimit, maxNamespaces); // validates the limits
        long heap = Runtime.getRuntime().maxMemory();
        if (memoryLimit > heap) {
            throw new IllegalArgumentException("the memory limit (" + memoryLimit + " bytes) exceeds the JVM's"
                    + " maximum heap (" + heap + " bytes): raise -Xmx (DEJA_JAVA_OPTS) or lower the limit");
        }
    }

    /**
     * Connections each front end takes by default: one per 4 MiB of the maximum heap, between 64 and 10,000. A
     * connection holds at most its {@link RequestMemory#PER_CONNECTION_ALLOWANCE} of requests outside the request
     * memory, and about 256 KiB of replies its client has not read before it stops being read, so both front ends
     * full hold less than a sixth of the heap.
     */
    public static int defaultConnections() {
        return Math.clamp(Runtime.getRuntime().maxMemory() >> 22, 64, 10_000);
    }

    /**
     * The request memory by default: a sixteenth of the maximum heap, and at least the largest request one
     * connection may send ({@code largestRequest}).
     */
    static long defaultRequestMemory(long largestRequest) {
        return Math.max(Runtime.getRuntime().maxMemory() / 16, largestRequest);
    }

    /** The most a request being received may hold ({@link RequestGuard}): the body or arguments and their framing. */
    public long maxRequestBytes() {
        return maxRequestBytes(maxBodyBytes, maxBatch, maxKeyBytes);
    }

    /** The most arguments one RESP command may have: a batch of n keys with owners takes 2n, plus 16 others. */
    public long maxCommandArguments() {
        return maxCommandArguments(maxBatch);
    }

    private static long maxCommandArguments(int maxBatch) {
        return 2L * maxBatch + 16;
    }

    /**
     * {@code maxBodyBytes} plus room for framing: 48 bytes for each argument a RESP command may have (its header,
     * line ends and {@code CommandAssembler}'s overhead), three times the largest key for an HTTP request line
     * (percent-encoded) and 64 KiB for headers.
     */
    private static long maxRequestBytes(int maxBodyBytes, int maxBatch, int maxKeyBytes) {
        return maxBodyBytes + 48L * maxCommandArguments(maxBatch) + 3L * maxKeyBytes + 64 * 1024;
    }

    /**
     * What the namespaces may take together: {@link #memoryLimit}, {@link #nativeMemoryLimit}, {@link #maxNamespaces}.
     */
    public NamespaceLimits namespaceLimits() {
        return new NamespaceLimits(memoryLimit, nativeMemoryLimit, maxNamespaces);
    }

    /** The journal and snapshot settings every namespace is opened with. */
    public Durability durability() {
        return new Durability(fsync, Duration.ofSeconds(snapshotIntervalSeconds));
    }

    /** A builder holding the defaults of {@code deja serve}. */
    public static Builder builder() {
        return new Builder();
    }

    private static void checkPort(String name, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(name + " must be in [0, 65535] (got " + port + ")");
        }
    }

    private static void atLeast(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + " (got " + value + ")");
        }
    }

    /** Builds a {@link ServerConfig}; every setter names the setting it sets. */
    public static final class Builder {
        private Path dataDir = Path.of("deja-data");
        private String bind = "127.0.0.1";
        private int httpPort = 8889;
        private int respPort = 6389;
        private boolean ephemeralPorts;
        private FsyncPolicy fsync = FsyncPolicy.EVERYSEC;
        private String password;
        private boolean autoCreate = true;
        private boolean allowFlush;
        private NamespaceSpec defaultSpec = DEFAULT_FILTER;
        private StoreKinds kinds;
        private String kvNamespace = "kv";
        private NamespaceSpec kvSpec = KV_DEFAULT;
        private int snapshotIntervalSeconds = 300;
        private int maxKeyBytes = 64 * 1024;
        private int maxBodyBytes = 16 * 1024 * 1024;
        private int maxBatch = 100_000;
        private int maxHttpConnections;
        private int maxRespConnections;
        private int idleTimeoutSeconds = 300;
        private int respIdleTimeoutSeconds;
        private int requestTimeoutSeconds = 30;
        private long requestMemory;
        private int ioThreads;
        private Transport transport = Transport.AUTO;
        private long memoryLimit;
        private long nativeMemoryLimit;
        private int maxNamespaces = NamespaceLimits.DEFAULT_COUNT;

        private Builder() {}

        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        public Builder bind(String bind) {
            this.bind = bind;
            return this;
        }

        public Builder httpPort(int httpPort) {
            this.httpPort = httpPort;
            return this;
        }

        public Builder respPort(int respPort) {
            this.respPort = respPort;
            return this;
        }

        /** Port 0 binds any free port instead of disabling the front end (for tests). */
        public Builder ephemeralPorts(boolean ephemeralPorts) {
            this.ephemeralPorts = ephemeralPorts;
            return this;
        }

        public Builder fsync(FsyncPolicy fsync) {
            this.fsync = fsync;
            return this;
        }

        /** The fsync policy by name: {@code always}, {@code everysec} or {@code no}. */
        public Builder fsync(String fsync) {
            return fsync(FsyncPolicy.parse(fsync));
        }

        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** Whether {@code FLUSHDB} and {@code FLUSHALL} may drop every namespace (default false: refused). */
        public Builder allowFlush(boolean allowFlush) {
            this.allowFlush = allowFlush;
            return this;
        }

        public Builder autoCreate(boolean autoCreate) {
            this.autoCreate = autoCreate;
            return this;
        }

        public Builder defaultSpec(NamespaceSpec defaultSpec) {
            this.defaultSpec = defaultSpec;
            return this;
        }

        public Builder kvNamespace(String kvNamespace) {
            this.kvNamespace = kvNamespace;
            return this;
        }

        public Builder kvSpec(NamespaceSpec kvSpec) {
            this.kvSpec = kvSpec;
            return this;
        }

        public Builder kinds(StoreKinds kinds) {
            this.kinds = kinds;
            return this;
        }

        public Builder snapshotIntervalSeconds(int seconds) {
            this.snapshotIntervalSeconds = seconds;
            return this;
        }

        public Builder maxKeyBytes(int maxKeyBytes) {
            this.maxKeyBytes = maxKeyBytes;
            return this;
        }

        public Builder maxBodyBytes(int maxBodyBytes) {
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        public Builder maxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
            return this;
        }

        /** Most open HTTP connections; 0 for {@link ServerConfig#defaultConnections()}. */
        public Builder maxHttpConnections(int maxHttpConnections) {
            this.maxHttpConnections = maxHttpConnections;
            return this;
        }

        /** Most open RESP connections; 0 for {@link ServerConfig#defaultConnections()}. */
        public Builder maxRespConnections(int maxRespConnections) {
            this.maxRespConnections = maxRespConnections;
            return this;
        }

        public Builder requestTimeoutSeconds(int seconds) {
            this.requestTimeoutSeconds = seconds;
            return this;
        }

        /** Bytes of request memory; 0 for a sixteenth of the maximum heap. */
        public Builder requestMemory(long requestMemory) {
            this.requestMemory = requestMemory;
            return this;
        }

        public Builder idleTimeoutSeconds(int seconds) {
            this.idleTimeoutSeconds = seconds;
            return this;
        }

        public Builder respIdleTimeoutSeconds(int seconds) {
            this.respIdleTimeoutSeconds = seconds;
            return this;
        }

        public Builder ioThreads(int ioThreads) {
            this.ioThreads = ioThreads;
            return this;
        }

        public Builder transport(Transport transport) {
            this.transport = transport;
            return this;
        }

        /** The transport by name: {@code auto}, {@code epoll} or {@code nio}. */
        public Builder transport(String transport) {
            return transport(Transport.parse(transport));
        }

        /** Bytes of heap the namespaces may reserve together; 0 for three quarters of the maximum heap. */
        public Builder memoryLimit(long memoryLimit) {
            this.memoryLimit = memoryLimit;
            return this;
        }

        /** Bytes of native memory the exact namespaces may reserve together; 0 for a quarter of the machine's. */
        public Builder nativeMemoryLimit(long nativeMemoryLimit) {
            this.nativeMemoryLimit = nativeMemoryLimit;
            return this;
        }

        public Builder maxNamespaces(int maxNamespaces) {
            this.maxNamespaces = maxNamespaces;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(
                    dataDir,
                    bind,
                    httpPort,
                    respPort,
                    ephemeralPorts,
                    fsync,
                    password,
                    autoCreate,
                    allowFlush,
                    defaultSpec,
                    kinds == null ? StoreKinds.standard() : kinds,
                    kvNamespace,
                    kvSpec,
                    snapshotIntervalSeconds,
                    maxKeyBytes,
                    maxBodyBytes,
                    maxBatch,
                    maxHttpConnections,
                    maxRespConnections,
                    idleTimeoutSeconds,
                    respIdleTimeoutSeconds,
                    requestTimeoutSeconds,
                    requestMemory,
                    ioThreads,
                    transport,
                    memoryLimit,
                    nativeMemoryLimit,
                    maxNamespaces);
        }
    }
}
