package dev.deja.testing;

import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Commands Lettuce has no method for (DJ.*, BF.*) or only a deprecated one (SETNX, SETEX, PSETEX), sent through its
 * generic dispatch.
 */
public final class RawCommands {

    private final RedisCommands<String, String> redis;

    public RawCommands(RedisCommands<String, String> redis) {
        this.redis = redis;
    }

    /** A command answered with a simple or bulk string. */
    public String status(String command, String... values) {
        return redis.dispatch(new Word(command), new StatusOutput<>(StringCodec.UTF8), args(values));
    }

    /** A command answered with an integer. */
    public Long integer(String command, String... values) {
        return redis.dispatch(new Word(command), new IntegerOutput<>(StringCodec.UTF8), args(values));
    }

    /** A command answered with an array. */
    public List<Object> list(String command, String... values) {
        return redis.dispatch(new Word(command), new ArrayOutput<>(StringCodec.UTF8), args(values));
    }

    private static CommandArgs<String, String> args(String... values) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
        for (String value : values) {
            args.add(value);
        }
        return args;
    }

    /** A command word Lettuce does not know. */
    public record Word(String word) implements ProtocolKeyword {

        @Override
        public byte[] getBytes() {
            return word.getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public String toString() {
            return word;
        }
    }
}
