package dev.deja.exact;

/**
 * How one store writes its values ({@link StoredValue}), fixed when the store is created and recorded in its
 * metadata ({@link StoreMetadata}): the time unit, the encoding of the time, and whether values carry data.
 *
 * @param timeUnitMillis the unit first-seen times are counted in
 * @param format         {@link StoredValue#FORMAT_VARINT_TIME} or {@link StoredValue#FORMAT_BYTE_TIME}
 * @param withData       whether values carry a value and an expiry (the key-value layout)
 */
record ValueLayout(long timeUnitMillis, int format, boolean withData) {

    /** The bytes written for the value in generation {@code g}. */
    byte[] encode(StoredValue value, Generation g) {
        return value.encode(g.createdMillis, timeUnitMillis, format, withData);
    }

    /** The value whose bytes generation {@code g} holds. */
    StoredValue decode(byte[] value, Generation g) {
        return StoredValue.decode(value, g.createdMillis, timeUnitMillis, format, withData);
    }
}
