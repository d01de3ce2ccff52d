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
            return Long.parseLong(string(index));
        } catch (NumberFormatException e) {
            throw RespError.notInteger();
        }
    }

    /** The arguments from {@code from} to the end. */
    List<byte[]> from(int from) {
        return values.subList(from, values.size());
    }
}
