package dev.deja.redis.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PackedArgumentsTest {

    private static final byte[] SHA = "e0e1f9fabfc9d4800c877a703b823ac0578ff831".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aScriptCallIsSentAsTheSameBytesAsLettucesOwnArguments() {
        Random random = new Random(7);
        byte[][] keys = {bytes("bucket:{17}:3"), bytes("bucket:{16}:3")};
        byte[][] args = new byte[23][];
        args[0] = bytes("1764374400000");
        for (int i = 1; i < args.length; i++) {
            // ids and owners of every length a bucket call sends, and the lengths whose decimal form grows a digit
            args[i] = new byte[i == 1 ? 0 : i == 2 ? 9 : i == 3 ? 10 : i == 4 ? 100 : 1 + random.nextInt(16)];
            random.nextBytes(args[i]);
        }
        CommandArgs<byte[], byte[]> plain =
                new CommandArgs<>(ByteArrayCodec.INSTANCE).add(SHA).add(keys.length);
        for (byte[] key : keys) {
            plain.addKey(key);
        }
        for (byte[] arg : args) {
            plain.add(arg);
        }

        CommandArgs<byte[], byte[]> packed = new PackedArguments(SHA, keys, args);

        assertThat(packed.count()).isEqualTo(plain.count()).isEqualTo(2 + keys.length + args.length);
        assertThat(encoded(packed)).isEqualTo(encoded(plain));
        // a cluster connection routes the call by its first key
        assertThat(Unpooled.wrappedBuffer(packed.getFirstEncodedKey())).isEqualTo(Unpooled.wrappedBuffer(keys[0]));
    }

    @Test
    void bulkStringsAreRespBulkStrings() {
        byte[] out = PackedArguments.bulkStrings(new byte[][] {bytes("ab"), new byte[0], bytes("0123456789")});
        assertThat(new String(out, StandardCharsets.US_ASCII)).isEqualTo("$2\r\nab\r\n$0\r\n\r\n$10\r\n0123456789\r\n");
    }

    private static byte[] encoded(CommandArgs<byte[], byte[]> args) {
        Command<byte[], byte[], String> command =
                new Command<>(CommandType.EVALSHA, new StatusOutput<>(ByteArrayCodec.INSTANCE), args);
        ByteBuf buf = Unpooled.buffer();
        try {
            command.encode(buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
