package dev.deja.redis.queue;

import dev.deja.checks.Require;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential back-off with jitter: after failure {@code n} (1 for the first) a task waits {@code d = min(max, base *
 * 2^(n-1))}, then a uniformly random time in {@code [d/2, d]} ("equal jitter"), so that tasks failed together do not
 * come back together, and none waits less than half its step.
 *
 * @param base the first step
 * @param max  the longest step
 */
public record Backoff(Duration base, Duration max) {

    public Backoff {
        Require.positive("base in ms", Require.nonNull("base", base).toMillis());
        Require.positive("max in ms", Require.nonNull("max", max).toMillis());
        if (max.compareTo(base) < 0) {
            throw new IllegalArgumentException("max (" + max + ") must not be below base (" + base + ")");
        }
    }

    /** The step after failure {@code failures} (1 for the first), before jitter, in milliseconds. */
    public long stepMillis(int failures) {
        long first = base.toMillis();
        long cap = max.toMillis();
        int doublings = Math.max(failures - 1, 0);
        if (doublings >= Long.numberOfLeadingZeros(first) - 1) { // the shift would overflow: the cap is smaller
            return cap;
        }
        return Math.min(first << doublings, cap);
    }

    /** The delay after failure {@code failures}, jittered. */
    public long delayMillis(int failures, RandomGenerator random) {
        long step = stepMillis(failures);
        long half = step / 2;
        return half + random.nextLong(step - half + 1);
    }
}
