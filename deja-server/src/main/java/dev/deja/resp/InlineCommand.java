package dev.deja.resp;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline command (a line typed into telnet or nc) into its arguments by Redis's rules, so that
 * {@code SET "my key" 'it''s'} means what it means to Redis: words are separated by blanks; double quotes take the
 * escapes {@code \n \r \t \b \a \\ \"} and {@code \xHH}; single quotes take only {@code \'}; a closing quote must end
 * its argument. Netty's codec hands over the line whole, and has no splitter of its own.
 */
final class InlineCommand {

    private InlineCommand() {}

    /** The arguments of one line, or null when its quotes are unbalanced (Redis then closes the connection). */
    static List<byte[]> split(String line) {
        byte[] in = line.getBytes(StandardCharsets.UTF_8);
        List<byte[]> arguments = new ArrayList<>();
        int p = 0;
        while (true) {
            while (p < in.length && blank(in[p])) {
                p++;
            }
            if (p == in.length) {
                return arguments;
            }
            ByteArrayOutputStream word = new ByteArrayOutputStream();
            char quote = 0;
            while (true) {
                if (p == in.length) {
                    if (quote != 0) {
                        return null;
                    }
                    break;
                }
                byte c = in[p];
                if (quote == '"') {
                    if (c == '\\'
                            && p + 3 < in.length
                            && in[p + 1] == 'x'
                            && hex(in[p + 2]) >= 0
                            && hex(in[p + 3]) >= 0) {
                        word.write(hex(in[p + 2]) * 16 + hex(in[p + 3]));
                        p += 4;
                        continue;
                    }
                    if (c == '\\' && p + 1 < in.length) {
                        word.write(unescape(in[p + 1]));
                        p += 2;
                        continue;
                    }
                    if (c == '"') {
                        if (p + 1 < in.length && !blank(in[p + 1])) {
                            return null; // Redis: a closing quote must be followed by a blank
                        }
                        p++;
                        break;
                    }
                } else if (quote == '\'') {
                    if (c == '\\' && p + 1 < in.length && in[p + 1] == '\'') {
                        word.write('\'');
                        p += 2;
                        continue;
                    }
                    if (c == '\'') {
                        if (p + 1 < in.length && !blank(in[p + 1])) {
                            return null;
                        }
                        p++;
                        break;
                    }
                } else if (blank(c)) {
                    break;
                } else if (c == '"' || c == '\'') {
                    quote = (char) c;
                    p++;
                    continue;
                }
                word.write(c);
                p++;
            }
            arguments.add(word.toByteArray());
        }
    }

    private static boolean blank(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static int hex(byte c) {
        return Character.digit(c, 16);
    }

    private static int unescape(byte c) {
        return switch (c) {
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'b' -> '\b';
            case 'a' -> 7;
            default -> c;
        };
    }
}
