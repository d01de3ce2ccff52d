package dev.deja.namespace;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import java.util.Properties;

/**
 * The dump of a namespace, the content of {@code BF.SCANDUMP} that {@code BF.LOADCHUNK} loads: a 4-byte big-endian
 * header length, the header (the namespace's {@link NamespaceMetadata} as Java properties, as in its
 * {@code namespace.properties}), then its store's content as its kind's snapshot payload. Only a
 * {@link SnapshotKind} has such a payload, so only its namespaces can be loaded from a dump.
 */
final class NamespaceDumps {

    /** The longest header a dump may have, far more than a kind and its parameters need. */
    private static final int MAX_HEADER_BYTES = 1 << 20;

    private NamespaceDumps() {}

    /** The kind and canonical parameters a dump's header gives, for the payload that follows it. */
    record Header(SnapshotKind kind, Map<String, String> parameters) {}

    /** Writes a dump of the namespace; its store keeps serving meanwhile. */
    static void write(Namespace namespace, OutputStream out) throws IOException {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        new NamespaceMetadata(namespace.kind(), namespace.parameters())
                .properties(namespace.name())
                .store(header, null);
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(header.size());
        header.writeTo(data);
        namespace.writeContent(data);
        data.flush();
    }

    /**
     * Reads a dump's header, leaving {@code in} at the start of the payload.
     *
     * @throws IllegalArgumentException when the header is malformed, or names a kind that is unknown or has no
     *                                  snapshot payload, or parameters the kind refuses
     */
    static Header readHeader(DataInputStream in, StoreKinds kinds) throws IOException {
        int headerLength = in.readInt();
        if (headerLength <= 0 || headerLength > MAX_HEADER_BYTES) {
            throw new IllegalArgumentException(
                    "dump header length must be in [1, " + MAX_HEADER_BYTES + "] (got " + headerLength + ")");
        }
        Properties metadata = new Properties();
        metadata.load(new ByteArrayInputStream(in.readNBytes(headerLength)));
        StoreKind named = kinds.get(NamespaceMetadata.kindName(metadata));
        if (!(named instanceof SnapshotKind kind)) {
            throw new IllegalArgumentException("namespaces of kind " + named.name() + " cannot be loaded from a dump");
        }
        return new Header(kind, kind.parameters(NamespaceMetadata.parameters(metadata)));
    }
}
