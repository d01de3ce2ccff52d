package dev.deja.seen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.recent.RecentFilter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StringKeysTest {

    private static final String KEY = "msg-\u00e9\u0436-\uD83D\uDE00"; // two- three- and four-byte UTF-8

    @Test
    void everySingleKeyCallHasAStringFormOnTheUtf8Bytes() {
        for (Method m : SeenSet.class.getMethods()) {
            Class<?>[] parameters = m.getParameterTypes();
            if (Modifier.isStatic(m.getModifiers()) || parameters.length == 0 || parameters[0] != byte[].class) {
                continue;
            }
            Class<?>[] withString = parameters.clone();
            withString[0] = String.class;
            assertThat(Arrays.stream(SeenSet.class.getMethods())
                            .anyMatch(s -> s.getName().equals(m.getName())
                                    && Arrays.equals(s.getParameterTypes(), withString)))
                    .as("%s(String%s)", m.getName(), parameters.length > 1 ? ", long" : "")
                    .isTrue();
        }
    }

    @Test
    void theStringFormsActOnTheUtf8Bytes() {
        byte[] bytes = KEY.getBytes(StandardCharsets.UTF_8);
        RecentFilter seen = RecentFilter.builder().buckets(1024).owners(true).build();
        seen.add(KEY, 7);
        assertThat(seen.check(bytes)).isTrue();
        assertThat(seen.checkThenAdd(bytes, 7)).isEqualTo(Verdict.RETRY);
        assertThat(seen.forget(KEY)).isTrue();
        assertThat(seen.check(KEY)).isFalse();

        seen.add(KEY);
        assertThat(seen.checkThenAdd(KEY, 7)).isEqualTo(Verdict.DUPLICATE);
        assertThat(seen.forget(KEY, 7)).isFalse();
        assertThat(seen.forget(bytes)).isTrue();
        assertThat(seen.checkThenAdd(KEY)).isEqualTo(Verdict.NEW);
        assertThatThrownBy(() -> seen.add((String) null, 7))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must not be null");
        assertThatThrownBy(() -> seen.forget((String) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must not be null");
    }
}
