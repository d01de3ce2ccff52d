package dev.deja.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory every connection together may hold in requests not yet executed ({@code --request-memory}): bytes
 * received of a request still arriving, and of requests received whole that wait for their turn.
 *
 * <p>Each connection holds its first {@link #PER_CONNECTION_ALLOWANCE} bytes without drawing on this budget, so
 * the small requests of well-behaved clients are served even while others fill it; only the bytes beyond that come
 * from here. A connection whose next bytes do not fit is refused ({@link RequestGuard}), and only that one.
 */
public final class RequestMemory {

    /**
     * What a connection may hold without drawing on the shared budget: room for any ordinary request (a key, a
     * small batch, the headers of a large one).
     */
    public static final int PER_CONNECTION_ALLOWANCE = 64 * 1024;

    private final long limit;
    private final AtomicLong held = new AtomicLong();

    /** A budget of {@code limit} bytes. */
    public RequestMemory(long limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("the request memory limit must be >= 0 (got " + limit + ")");
        }
        this.limit = limit;
    }

    /** Takes {@code bytes} from the budget, or nothing and returns false when they do not fit. */
    boolean take(long bytes) {
        long now;
        do {
            now = held.get();
            if (now + bytes > limit) {
                return false;
            }
        } while (!held.compareAndSet(now, now + bytes));
        return true;
    }

    /** Gives back bytes taken. */
    void give(long bytes) {
        held.addAndGet(-bytes);
    }

    /** The budget, in bytes. */
    public long limit() {
        return limit;
    }

    /** Bytes taken from the budget now. */
    public long held() {
        return held.get();
    }
}
