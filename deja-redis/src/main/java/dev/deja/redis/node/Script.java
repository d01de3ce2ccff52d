package dev.deja.redis.node;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.ObjectOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

/**
 * A Lua script called by its SHA1 ({@code EVALSHA}); when Redis answers {@code NOSCRIPT} (a restarted server, a
 * {@code SCRIPT FLUSH}, a failover) the same call is made once with the script's text ({@code EVAL}), which loads it
 * again on that server. Arguments go to Redis as the bytes given: the command is built by hand ({@code dispatch})
 * with the arguments encoded by the caller's thread into one array ({@link PackedArguments}), where Lettuce's
 * {@code evalsha} would first copy each value through its codec into a buffer of its own.
 */
public final class Script {

    private final String name;
    private final byte[] text;
    private final byte[] sha;
    private final ScriptOutputType output;

    private Script(String name, byte[] text, ScriptOutputType output) {
        this.name = name;
        this.text = text;
        this.output = output;
        try {
            this.sha = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text))
                    .getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    /** The script in the class path resource {@code name}, beside {@code owner}. */
    public static Script load(Class<?> owner, String name, ScriptOutputType output) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + name);
            }
            return new Script(name, in.readAllBytes(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Loads the script into the node's cache ({@code SCRIPT LOAD}), so that the first calls find it. */
    public CompletableFuture<String> preload(Node node) {
        return node.commands().scriptLoad(text).toCompletableFuture();
    }

    /** Runs the script on the node with these keys and arguments. */
    public <T> CompletableFuture<T> run(Node node, byte[][] keys, byte[]... args) {
        CompletableFuture<T> bySha = node.commands()
                .dispatch(CommandType.EVALSHA, this.<T>output(), new PackedArguments(sha, keys, args))
                .toCompletableFuture();
        return bySha.exceptionallyCompose(e -> isNoScript(e)
                ? node.commands()
                        .dispatch(CommandType.EVAL, this.<T>output(), new PackedArguments(text, keys, args))
                        .toCompletableFuture()
                : CompletableFuture.failedFuture(e));
    }

    /** The reply's decoder for the script's output type, as Lettuce's own {@code evalsha} picks it. */
    @SuppressWarnings("unchecked") // the caller names the type the script's output type gives
    private <T> CommandOutput<byte[], byte[], T> output() {
        ByteArrayCodec codec = ByteArrayCodec.INSTANCE;
        return (CommandOutput<byte[], byte[], T>)
                switch (output) {
                    case BOOLEAN -> new BooleanOutput<>(codec);
                    case INTEGER -> new IntegerOutput<>(codec);
                    case MULTI -> new NestedMultiOutput<>(codec);
                    case STATUS -> new StatusOutput<>(codec);
                    case VALUE -> new ValueOutput<>(codec);
                    case OBJECT -> new ObjectOutput<>(codec);
                };
    }

    private static boolean isNoScript(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RedisNoScriptException) {
                return true;
            }
        }
        return false;
    }

    /** The script's resource name, for messages. */
    public String name() {
        return name;
    }
}
