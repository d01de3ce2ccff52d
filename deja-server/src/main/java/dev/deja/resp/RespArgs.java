package dev.deja.resp;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A command's arguments as the client sent them (index 0 is the command name), with the conversions commands need
 * and Redis's error replies when a conversion fails.
 *
 * @param values the raw arguments
 */
record RespArgs(List<byte[]> values) {

    /** Heap an argument takes beside its bytes: the array's header and the command's reference to it. */
    static final int ARGUMENT_OVERHEAD = 32;

    /** The command name in upper case. */
    String command() {
        return upper(0);
    }

    int size() {
        return values.size();
    }

    byte[] bytes(int index) {
        return values.get(index);
    }

    String string(int index) {
        return new String(values.get(index), StandardCharsets.UTF_8);
    }

    /** Whether the argument is this ASCII upper-case word, in any case (no string is built). */
    boolean is(int index, String upperCaseWord) {
        byte[] v = values.get(index);
        if (v.length != upperCaseWord.length()) {
            return false;
        }
        for (int i = 0; i < v.length; i++) {
            int c = v[i] >= 'a' && v[i] <= 'z' ? v[i] - ('a' - 'A') : v[i];
            if (c != upperCaseWord.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    String upper(int index) {
        return string(index).toUpperCase(Locale.ROOT);
    }

    /** The argument as a 64-bit integer, or Redis's "not an integer" error. */
    long integer(int index) {
        try {
            return strictInteger(string(index));
        } catch (NumberFormatException e) {
            throw RespError.notInteger();
        }
    }

    /**
     * An integer written as Redis writes one (its {@code string2ll}): ASCII digits, an optional minus, no plus, no
     * leading zero and no "-0". {@link Long#parseLong} also takes "+10", "010" and digits of other scripts.
     *
     * @throws NumberFormatException for anything else, or a value outside the 64-bit range
     */
    static long strictInteger(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        boolean canonical =
                text.length() > start && (text.equals("0") || (text.charAt(start) >= '1' && text.charAt(start) <= '9'));
        for (int i = start; canonical && i < text.length(); i++) {
            canonical = text.charAt(i) >= '0' && text.charAt(i) <= '9';
        }
        if (!canonical) {
            throw new NumberFormatException("not an integer as Redis writes one: " + text);
        }
        return Long.parseLong(text);
    }

    /** The arguments from {@code from} to the end. */
    List<byte[]> from(int from) {
        return values.subList(from, values.size());
    }
}
