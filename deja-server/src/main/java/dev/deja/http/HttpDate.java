package dev.deja.http;

import io.netty.handler.codec.DateFormatter;
import io.netty.util.AsciiString;
import java.util.Date;

/**
 * The value of the {@code Date} header every response carries: RFC 9110 (6.6.1) requires one from an origin server
 * with a clock, in the IMF-fixdate form ({@code Thu, 26 Nov 2026 08:45:00 GMT}) that Netty's {@link DateFormatter}
 * writes. Formatted once a second, not once per response: at tens of thousands of responses a second the text is
 * the same for all of them.
 */
final class HttpDate {

    private record Stamp(long second, AsciiString text) {}

    /** The last second formatted; two threads that both see it stale format the same text, which is harmless. */
    private static volatile Stamp last = new Stamp(Long.MIN_VALUE, AsciiString.EMPTY_STRING);

    private HttpDate() {}

    /** The current time as a {@code Date} header value (an AsciiString, which the encoder copies whole). */
    static AsciiString now() {
        long second = Math.floorDiv(System.currentTimeMillis(), 1000);
        Stamp stamp = last;
        if (stamp.second() != second) {
            @SuppressWarnings("JavaUtilDate") // Netty's DateFormatter, which writes the IMF-fixdate, takes a Date
            String text = DateFormatter.format(new Date(second * 1000));
            stamp = new Stamp(second, new AsciiString(text));
            last = stamp;
        }
        return stamp.text();
    }
}
