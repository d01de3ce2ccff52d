package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The id source's text form, which {@code deja kafka run --id} and its config file use. */
class IdSourceTest {

    @Test
    void everyFormReadsBackAsWritten() {
        for (IdSource source : new IdSource[] {
            IdSource.key(), IdSource.valueHash(), IdSource.header("msg-id"), IdSource.jsonField("context.messageId")
        }) {
            assertThat(IdSource.parse(source.toString())).isEqualTo(source);
        }
        assertThat(IdSource.parse("json:a.b").argument()).isEqualTo("a.b");
    }

    @Test
    void otherTextIsRefusedNamingTheForms() {
        for (String text : new String[] {"", "key:x", "hash:x", "header", "header:", "json:", "json:a..b", "xml:id"}) {
            assertThatThrownBy(() -> IdSource.parse(text)).as(text).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> IdSource.parse("xml:id")).hasMessageContaining("key, header:NAME, json:PATH");
    }
}
