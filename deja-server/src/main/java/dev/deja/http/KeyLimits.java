package dev.deja.http;

import dev.deja.seen.SeenSet;

/**
 * The limits on keys in requests, and the parsing of an owner: a key over {@code maxKeyBytes} and a batch over
 * {@code maxBatch} keys are 413s, an owner that is not a 64-bit integer a 400.
 *
 * @param maxKeyBytes the longest key accepted
 * @param maxBatch    the most keys in one batch
 */
record KeyLimits(int maxKeyBytes, int maxBatch) {

    /** {@code key}, refused if it is longer than the limit; {@code index} is its place in a batch, or -1. */
    byte[] key(byte[] key, int index) {
        if (key.length > maxKeyBytes) {
            throw HttpProblem.tooLarge((index < 0 ? "key" : "key " + (index + 1)) + " must be at most " + maxKeyBytes
                    + " bytes (got " + key.length + ")");
        }
        return key;
    }

    /** Refuses a batch that has come to hold more keys than the limit. */
    void batchSize(int keys) {
        if (keys > maxBatch) {
            throw HttpProblem.tooLarge("a batch must hold at most " + maxBatch + " keys");
        }
    }

    /** The owner a query parameter gives, or {@link SeenSet#NO_OWNER} when it is absent. */
    static long owner(String text) {
        if (text == null) {
            return SeenSet.NO_OWNER;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw HttpProblem.badRequest("owner must be a 64-bit signed integer (got '" + text + "')");
        }
    }
}
