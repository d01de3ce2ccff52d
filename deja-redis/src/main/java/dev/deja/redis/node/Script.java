package dev.deja.redis.node;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

/**
 * A Lua script called by its SHA1 ({@code EVALSHA}); when Redis answers {@code NOSCRIPT} (a restarted server, a
 * {@code SCRIPT FLUSH}, a failover) the same call is made once with the script's text ({@code EVAL}), which loads it
 * again on that server.
 */
public final class Script {

    private final String name;
    private final byte[] text;
    private final String sha;
    private final ScriptOutputType output;

    private Script(String name, byte[] text, ScriptOutputType output) {
        this.name = name;
        this.text = text;
        this.output = output;
        try {
            this.sha =
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
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
        return node.scripting().scriptLoad(text).toCompletableFuture();
    }

    /** Runs the script on the node with these keys and arguments. */
    public <T> CompletableFuture<T> run(Node node, byte[][] keys, byte[]... args) {
        CompletableFuture<T> bySha =
                node.scripting().<T>evalsha(sha, output, keys, args).toCompletableFuture();
        return bySha.exceptionallyCompose(e -> isNoScript(e)
                ? node.scripting().<T>eval(text, output, keys, args).toCompletableFuture()
                : CompletableFuture.failedFuture(e));
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
