package dev.deja.redis;

import dev.deja.redis.node.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The script calls of one batch, sent at once (Lettuce pipelines those on one connection) and then awaited, each
 * reply handed to its consumer; calls that fail are collected with the instance they went to.
 */
final class Calls {

    private record Pending(Node node, CompletableFuture<?> reply, Consumer<Object> onReply, Runnable onFailure) {}

    private final List<Pending> pending = new ArrayList<>();
    private final Set<String> failedInstances = new LinkedHashSet<>();
    private Throwable firstFailure;

    /** Sends a call to the node; {@code onReply} gets its reply, {@code onFailure} runs if it fails. */
    void send(Node node, Supplier<CompletableFuture<?>> call, Consumer<Object> onReply, Runnable onFailure) {
        CompletableFuture<?> reply;
        try {
            reply = call.get();
        } catch (RuntimeException e) { // the connection could not be opened
            reply = CompletableFuture.failedFuture(e);
        }
        pending.add(new Pending(node, reply, onReply, onFailure));
    }

    /**
     * Waits for every reply, at most a second beyond the commands' own {@code timeout} (after which Lettuce fails
     * them), and hands each to its consumer.
     *
     * @return whether every call succeeded
     */
    boolean await(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        for (Pending p : pending) {
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                p.onReply().accept(p.reply().get(left, TimeUnit.NANOSECONDS));
            } catch (ExecutionException e) {
                fail(p, e.getCause());
            } catch (TimeoutException e) {
                p.reply().cancel(false);
                fail(p, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail(p, e);
            }
        }
        pending.clear();
        return failedInstances.isEmpty();
    }

    private void fail(Pending p, Throwable cause) {
        failedInstances.add(p.node().name());
        if (firstFailure == null) {
            firstFailure = cause;
        }
        p.onFailure().run();
    }

    /** The instances whose calls failed, in the order met. */
    List<String> failedInstances() {
        return List.copyOf(failedInstances);
    }

    /** The first failure, described with its instance. */
    RedisStoreException failure(String what) {
        return new RedisStoreException(
                String.join(", ", failedInstances), what + " failed: " + describe(), firstFailure);
    }

    /** What the first failure was, in a few words. */
    String describe() {
        if (firstFailure instanceof TimeoutException) {
            return "timed out (no reply in time)";
        }
        return firstFailure.getClass().getSimpleName() + ": " + firstFailure.getMessage();
    }

    /** The first failure, unwrapped. */
    Throwable firstFailure() {
        return firstFailure;
    }
}
