package dev.deja.resp;

import dev.deja.namespace.Namespace;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code BF.SCANDUMP} and {@code BF.LOADCHUNK}: a namespace's dump (kind, parameters, snapshot payload) cut into
 * chunks, staged in a file under {@code <data>/.transfers} so a large filter is never held in memory twice.
 *
 * <p>As in RedisBloom, {@code SCANDUMP key 0} starts a dump and each reply carries the iterator of the next call;
 * a reply with iterator 0 ends it. {@code LOADCHUNK} takes the chunks with the iterators they came with, in order.
 * The staged dump begins with its own length (8 bytes) so the loader knows when the last chunk has arrived.
 *
 * <p>Each dump has its own staged file, named by the iterators it hands out: an iterator is the dump's number times
 * 2^24 plus the number of chunks sent so far, below 2^53 so that clients holding numbers as doubles keep it exact. Two
 * clients dumping the same key at once each read their own dump. A namespace keeps at most {@link #DUMPS_PER_NAMESPACE}
 * dumps in progress (a new one ends the oldest), and a dump nobody has continued for {@link #IDLE} is deleted, so
 * abandoned dumps, each as large as its filter, do not fill the disk.
 */
final class DumpTransfers {

    private static final Logger log = LoggerFactory.getLogger(DumpTransfers.class);

    private final ServerContext context;
    private final Path dir;
    private final int chunkBytes;
    /** Chunks per dump that its iterators can number; a dump of 4 MiB chunks thus holds up to 64 TiB. */
    static final long CHUNKS_PER_DUMP = 1L << 24;

    static final int DUMPS_PER_NAMESPACE = 4;
    /** The highest dump number: its iterators, up to (2^29 - 1) x 2^24 + 2^24 - 1, stay below 2^53. */
    static final long MAX_DUMP_NUMBER = (1L << 29) - 1;

    static final Duration IDLE = Duration.ofMinutes(10);

    private final ConcurrentMap<Long, Dump> dumps = new ConcurrentHashMap<>();
    private final AtomicLong dumpNumbers = new AtomicLong();
    private final Clock clock;
    private final ConcurrentMap<String, Load> loads = new ConcurrentHashMap<>();

    /** A staged dump: its namespace, its file, when a client last read a chunk of it. */
    private record Dump(String namespace, Path file, long number, Instant lastUsed) {}

    /**
     * A dump being loaded: its staged file, the iterator of the chunk it takes next, when it last took one, the bytes
     * staged so far and the length the dump announces in its first 8 bytes, counted with them (0 until they are in).
     */
    private record Load(Path file, long nextIterator, Instant lastUsed, long size, long expected) {}

    DumpTransfers(ServerContext context) {
        this(context, Clock.systemUTC());
    }

    DumpTransfers(ServerContext context, Clock clock) {
        this.context = context;
        this.clock = clock;
        this.dir = context.config().dataDir().resolve(".transfers");
        // a chunk must fit in one bulk string the server accepts back
        this.chunkBytes = Math.max(1, Math.min(4 << 20, context.config().maxBodyBytes() / 2));
        removeLeftovers();
    }

    /**
     * Deletes the staged files a previous run left (a crash in the middle of a transfer): transfers in progress are
     * known only to the process that started them, so nothing can resume them, and each may be as large as a filter.
     */
    private void removeLeftovers() {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> left = files.toList();
            for (Path file : left) {
                Files.deleteIfExists(file);
            }
            if (!left.isEmpty()) {
                log.info("removed {} staged transfer file(s) a previous run left in {}", left.size(), dir);
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("cannot remove the staged transfer files in {}: {}", dir, e.toString());
        }
    }

    /** The chunk at {@code iterator} of the namespace's dump, and the iterator of the next call. */
    RedisMessage scanDump(Namespace namespace, long iterator) {
        removeIdle();
        try {
            Dump dump;
            long chunk;
            if (iterator == 0) {
                dump = start(namespace.name());
                chunk = 0;
            } else {
                dump = iterator < 0 ? null : dumps.get(iterator / CHUNKS_PER_DUMP);
                chunk = iterator % CHUNKS_PER_DUMP; // the reply carrying chunk c - 1 handed out c
                if (dump == null || !dump.namespace().equals(namespace.name()) || chunk < 1) {
                    throw new RespError("ERR no dump in progress for this key at iterator " + iterator
                            + " (start with iterator 0; a dump not continued for " + IDLE.toMinutes()
                            + " minutes, or the oldest of more than " + DUMPS_PER_NAMESPACE
                            + " at once, is dropped)");
                }
                dumps.replace(
                        dump.number(), dump, new Dump(dump.namespace(), dump.file(), dump.number(), clock.instant()));
            }
            long offset = chunk * chunkBytes;
            try (FileChannel channel = FileChannel.open(dump.file())) {
                long size = channel.size();
                if (offset >= size) {
                    end(dump);
                    return Replies.array(List.of(Replies.integer(0), Replies.bulk(new byte[0])));
                }
                if (chunk + 1 >= CHUNKS_PER_DUMP) {
                    end(dump);
                    throw new RespError("ERR the dump needs more than " + CHUNKS_PER_DUMP + " chunks of " + chunkBytes
                            + " bytes; raise --max-body-bytes, which sets the chunk size");
                }
                ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(chunkBytes, size - offset));
                while (bytes.hasRemaining()) {
                    channel.read(bytes, offset + bytes.position());
                }
                long next = dump.number() * CHUNKS_PER_DUMP + chunk + 1;
                return Replies.array(List.of(Replies.integer(next), Replies.bulk(bytes.array())));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage the dump of namespace '" + namespace.name() + "'", e);
        }
    }

    /** Stages a new dump of the namespace, ending its oldest when it has as many in progress as it may. */
    private Dump start(String name) throws IOException {
        // numbers 1 to 2^29 - 1, so that every iterator stays below 2^53; after a wrap, one still in use is skipped
        long number;
        do {
            number = dumpNumbers.getAndUpdate(n -> n % MAX_DUMP_NUMBER + 1) % MAX_DUMP_NUMBER + 1;
        } while (dumps.containsKey(number));
        Dump dump = new Dump(name, stage(name), number, clock.instant());
        dumps.put(number, dump);
        List<Dump> mine = dumps.values().stream()
                .filter(d -> d.namespace().equals(name))
                .sorted(Comparator.comparing(Dump::lastUsed).thenComparingLong(Dump::number))
                .toList();
        for (Dump old : mine.subList(0, Math.max(0, mine.size() - DUMPS_PER_NAMESPACE))) {
            end(old);
        }
        return dump;
    }

    private void end(Dump dump) throws IOException {
        if (dumps.remove(dump.number()) != null) {
            Files.deleteIfExists(dump.file());
        }
    }

    /**
     * Deletes the dumps and loads nobody has continued for {@link #IDLE}; run at each call rather than on a timer,
     * so one abandoned stays until the next transfer of any namespace (or a restart).
     */
    private void removeIdle() {
        Instant cutoff = clock.instant().minus(IDLE);
        for (Map.Entry<String, Load> load : loads.entrySet()) {
            if (load.getValue().lastUsed().isBefore(cutoff) && loads.remove(load.getKey(), load.getValue())) {
                try {
                    Files.deleteIfExists(load.getValue().file());
                    log.info(
                            "removed the load into namespace '{}' nobody continued for {} minutes",
                            load.getKey(),
                            IDLE.toMinutes());
                } catch (IOException e) {
                    log.warn(
                            "cannot remove the staged load {}: {}",
                            load.getValue().file(),
                            e.toString());
                }
            }
        }
        for (Dump dump : dumps.values()) {
            if (dump.lastUsed().isBefore(cutoff)) {
                try {
                    end(dump);
                    log.info(
                            "removed the dump of namespace '{}' nobody continued for {} minutes",
                            dump.namespace(),
                            IDLE.toMinutes());
                } catch (IOException e) {
                    log.warn("cannot remove the staged dump {}: {}", dump.file(), e.toString());
                }
            }
        }
    }

    /**
     * Appends one chunk; the last one replaces (or creates) the namespace with the dump's content and is answered
     * once that content is in a snapshot on disk, so an OK survives a crash like an acknowledged write.
     */
    Object loadChunk(String name, long iterator, byte[] data) {
        removeIdle();
        try {
            Load load = loads.get(name);
            if (iterator > 0 && iterator % CHUNKS_PER_DUMP == 1) { // a dump's first chunk
                if (load != null) {
                    Files.deleteIfExists(load.file());
                }
                Files.createDirectories(dir);
                load = new Load(Files.createTempFile(dir, "load-", ".dump"), iterator, clock.instant(), 0, 0);
            } else if (load == null || load.nextIterator() != iterator) {
                throw new RespError("ERR invalid iterator " + iterator + " (expected "
                        + (load == null ? "the iterator of the dump's first chunk" : load.nextIterator()) + ")");
            }
            Files.write(load.file(), data, StandardOpenOption.APPEND);
            long size = load.size() + data.length;
            long expected = load.expected();
            if (expected == 0 && size >= Long.BYTES) { // the announced length is in: read and checked once
                long announced;
                try (InputStream in = Files.newInputStream(load.file())) {
                    announced = ByteBuffer.wrap(in.readNBytes(Long.BYTES)).getLong();
                }
                long limit = context.namespaces().memoryLimit();
                if (announced < 0) {
                    throw refused(name, load, "the dump announces a negative length (" + announced + " bytes)");
                }
                if (announced > limit + (1 << 20)) { // a filter's bits plus its header
                    throw refused(
                            name,
                            load,
                            "the dump announces " + announced + " bytes, more than a namespace"
                                    + " may hold here (--memory-limit " + limit + " bytes)");
                }
                expected = announced + Long.BYTES;
            }
            if (expected > 0 && size > expected) {
                throw refused(name, load, "the chunks are longer than the dump they start");
            }
            if (size == expected) {
                loads.remove(name);
                try (InputStream in = new BufferedInputStream(Files.newInputStream(load.file()), 1 << 16)) {
                    in.skipNBytes(Long.BYTES);
                    context.namespaces().loadDump(name, in);
                } catch (IOException | RuntimeException e) {
                    throw new RespError("ERR received bad data: " + e.getMessage());
                } finally {
                    Files.deleteIfExists(load.file());
                }
                return Replies.OK; // the loaded content is in a snapshot on disk once loadDump returns
            } else {
                loads.put(name, new Load(load.file(), iterator + 1, clock.instant(), size, expected));
            }
            return Replies.OK;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage a chunk for namespace '" + name + "'", e);
        }
    }

    /** Drops the load and its staged file; the error to answer. */
    private RespError refused(String name, Load load, String why) throws IOException {
        loads.remove(name);
        Files.deleteIfExists(load.file());
        return new RespError("ERR received bad data: " + why);
    }

    private Path stage(String name) throws IOException {
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, "dump-", ".dump");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
            DataOutputStream data = new DataOutputStream(out);
            data.writeLong(0); // the length, patched below
            context.namespaces().writeDump(name, data);
            data.flush();
            channel.write(ByteBuffer.allocate(Long.BYTES).putLong(0, channel.size() - Long.BYTES), 0);
        }
        return file;
    }
}
