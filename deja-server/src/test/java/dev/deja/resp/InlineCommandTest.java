package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Inline commands split by Redis's rules (its sdssplitargs), the way telnet users quote arguments. */
class InlineCommandTest {

    @Test
    void blanksSeparateWords() {
        assertThat(words("  SET\tkey   value \r\n")).containsExactly("SET", "key", "value");
        assertThat(words("   ")).isEmpty();
    }

    @Test
    void doubleQuotesKeepBlanksAndTakeEscapes() {
        assertThat(words("SET \"my key\" \"a\\\"b\\\\c\\n\\r\\t\\b\\a\""))
                .containsExactly("SET", "my key", "a\"b\\c\n\r\t\b\u0007");
        // \x without two hex digits is an x, as any other escaped character is itself
        assertThat(words("ECHO \"\\x41\\x7a\\x4\"")).containsExactly("ECHO", "Azx4");
        assertThat(words("ECHO \"\"")).containsExactly("ECHO", "");
        assertThat(InlineCommand.split("ECHO \"\\xff\"").get(1)).containsExactly(0xff);
    }

    @Test
    void singleQuotesTakeOnlyAnEscapedQuote() {
        assertThat(words("ECHO 'it\\'s \\n'")).containsExactly("ECHO", "it's \\n");
    }

    @Test
    void aQuoteInsideAWordStartsQuoting() {
        assertThat(words("ECHO a\"b c\"")).containsExactly("ECHO", "ab c");
    }

    @Test
    void unbalancedQuotesAreRefused() {
        assertThat(InlineCommand.split("ECHO \"open")).isNull();
        assertThat(InlineCommand.split("ECHO 'open")).isNull();
        assertThat(InlineCommand.split("ECHO \"closed\"x"))
                .as("a closing quote must end the argument")
                .isNull();
        assertThat(InlineCommand.split("ECHO \"ends in a backslash\\")).isNull();
    }

    private static List<String> words(String line) {
        return InlineCommand.split(line).stream()
                .map(b -> new String(b, StandardCharsets.UTF_8))
                .toList();
    }
}
