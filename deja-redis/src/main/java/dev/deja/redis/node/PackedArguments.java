package dev.deja.redis.node;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;

/**
 * A script call's arguments: the script (its SHA1 or text), the key count and the keys as Lettuce writes them (the
 * keys added as keys, so that a cluster connection routes the call by the first one's slot), then every other
 * argument already encoded as RESP bulk strings in one array. The encoding is done by the caller's thread as the call
 * is made; Lettuce's I/O thread then copies the whole array into its output buffer with one write, where it would
 * make five small writes per argument (the {@code $}, the length, a line end, the bytes, a line end). A bucket call
 * carries two arguments per id, so per-argument writes would be most of the I/O thread's work. The bytes sent are the
 * same.
 */
final class PackedArguments extends CommandArgs<byte[], byte[]> {

    private final byte[] packed;
    private final int packedCount;

    PackedArguments(byte[] script, byte[][] keys, byte[][] args) {
        super(ByteArrayCodec.INSTANCE);
        add(script).add(keys.length);
        for (byte[] key : keys) {
            addKey(key);
        }
        this.packed = bulkStrings(args);
        this.packedCount = args.length;
    }

    @Override
    public int count() {
        return super.count() + packedCount;
    }

    @Override
    public void encode(ByteBuf buf) {
        super.encode(buf);
        buf.writeBytes(packed);
    }

    @Override
    public String toCommandString() {
        return super.toCommandString() + " <" + packedCount + " more arguments>";
    }

    /** The values as consecutive RESP bulk strings: {@code $<length>\r\n<bytes>\r\n} each. */
    static byte[] bulkStrings(byte[][] values) {
        int size = 0;
        for (byte[] value : values) {
            size += 1 + digits(value.length) + 2 + value.length + 2;
        }
        byte[] out = new byte[size];
        int at = 0;
        for (byte[] value : values) {
            out[at++] = '$';
            at = writeDigits(out, at, value.length);
            out[at++] = '\r';
            out[at++] = '\n';
            System.arraycopy(value, 0, out, at, value.length);
            at += value.length;
            out[at++] = '\r';
            out[at++] = '\n';
        }
        return out;
    }

    private static int digits(int n) {
        int digits = 1;
        for (int rest = n / 10; rest > 0; rest /= 10) {
            digits++;
        }
        return digits;
    }

    /** Writes {@code n} (not negative) in decimal at {@code at}; returns the index after it. */
    private static int writeDigits(byte[] out, int at, int n) {
        int end = at + digits(n);
        int rest = n;
        for (int i = end - 1; i >= at; i--) {
            out[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return end;
    }
}
