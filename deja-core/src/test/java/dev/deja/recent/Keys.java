package dev.deja.recent;

/** Distinct test keys: a stream tag and a counter, as 12 bytes. */
final class Keys {

    private Keys() {}

    static byte[] of(int stream, long i) {
        byte[] key = new byte[12];
        for (int b = 0; b < 4; b++) {
            key[b] = (byte) (stream >>> (8 * b));
        }
        for (int b = 0; b < 8; b++) {
            key[4 + b] = (byte) (i >>> (8 * b));
        }
        return key;
    }
}
