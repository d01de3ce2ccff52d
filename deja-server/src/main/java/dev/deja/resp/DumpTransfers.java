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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 */
final class DumpTransfers {

    private static final Logger log = LoggerFactory.getLogger(DumpTransfers.class);

    private final ServerContext context;
    private final Path dir;
    private final int chunkBytes;
    private final Map<String, Path> dumps = new ConcurrentHashMap<>();
    private final Map<String, Load> loads = new ConcurrentHashMap<>();

    private record Load(Path file, long nextIterator) {
    }

    DumpTransfers(ServerContext context) {
        this.context = context;
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
        try {
            Path file;
            if (iterator == 0) {
                file = stage(namespace.name());
                Path previous = dumps.put(namespace.name(), file);
                if (previous != null) {
                    Files.deleteIfExists(previous);
                }
            } else {
                file = dumps.get(namespace.name());
                if (file == null || iterator < 0) {
                    throw new RespError("ERR no dump in progress for this key at iterator " + iterator
                            + " (start with iterator 0)");
                }
            }
            long offset = iterator * (long) chunkBytes;
            try (FileChannel channel = FileChannel.open(file)) {
                long size = channel.size();
                if (offset >= size) {
                    dumps.remove(namespace.name(), file);
                    Files.deleteIfExists(file);
                    return Replies.array(List.of(Replies.integer(0), Replies.bulk(new byte[0])));
                }
                ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(chunkBytes, size - offset));
                while (chunk.hasRemaining()) {
                    channel.read(chunk, offset + chunk.position());
                }
                return Replies.array(List.of(Replies.integer(iterator + 1), Replies.bulk(chunk.array())));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage the dump of namespace '" + namespace.name() + "'", e);
        }
    }

    /**
     * Appends one chunk; the last one replaces (or creates) the namespace with the dump's content and is answered
     * once that content is in a snapshot on disk, so an OK survives a crash like an acknowledged write.
     */
    Object loadChunk(String name, long iterator, byte[] data) {
        try {
            Load load = loads.get(name);
            if (iterator == 1) {
                if (load != null) {
                    Files.deleteIfExists(load.file());
                }
                Files.createDirectories(dir);
                load = new Load(Files.createTempFile(dir, "load-", ".dump"), 1);
            } else if (load == null || load.nextIterator() != iterator) {
                throw new RespError("ERR invalid iterator " + iterator + " (expected "
                        + (load == null ? 1 : load.nextIterator()) + ")");
            }
            Files.write(load.file(), data, StandardOpenOption.APPEND);
            long size = Files.size(load.file());
            long expected = -1;
            if (size >= Long.BYTES) {
                try (InputStream in = Files.newInputStream(load.file())) {
                    expected = ByteBuffer.wrap(in.readNBytes(Long.BYTES)).getLong() + Long.BYTES;
                }
            }
            long limit = context.namespaces().memoryLimit() + (1 << 20); // a filter's bits plus its header
            if (expected - Long.BYTES > limit) {
                loads.remove(name);
                Files.deleteIfExists(load.file());
                throw new RespError("ERR received bad data: the dump announces " + (expected - Long.BYTES)
                        + " bytes, more than a namespace may hold here (--memory-limit " + (limit - (1 << 20))
                        + " bytes)");
            }
            if (expected > 0 && size > expected) {
                loads.remove(name);
                Files.deleteIfExists(load.file());
                throw new RespError("ERR received bad data: the chunks are longer than the dump they start");
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
                // the replaced namespace's snapshot is already queued; this one completes after it, at once
                return context.namespaces().snapshot(name).thenApply(written -> Replies.OK);
            } else {
                loads.put(name, new Load(load.file(), iterator + 1));
            }
            return Replies.OK;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage a chunk for namespace '" + name + "'", e);
        }
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
