package dev.deja.kafka.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code deja kafka demo}, the README's way to see the Kafka side work: a broker of its own, every copy removed. */
class DemoCommandTest {

    @Test
    void theDemoRemovesEveryDuplicateAndSaysSo() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine kafka = KafkaMain.commandLine(Map.of());
        kafka.setOut(new PrintWriter(out, /* autoFlush= */ true));
        kafka.setErr(new PrintWriter(err, /* autoFlush= */ true));

        int status = kafka.execute("demo", "--messages", "4000", "--partitions", "2");

        assertThat(status).as("exit status; output:%n%s%s", out, err).isZero();
        String text = out.toString();
        assertThat(text).contains("starting a Kafka broker in this process");
        assertThat(text).containsPattern("produced 4,000 messages to demo-events: ([\\d,]+) unique ids, ([\\d,]+) dup");
        String unique = text.replaceAll("(?s).*unique in:  ([\\d,]+).*", "$1");
        assertThat(text).contains("unique out: " + unique + " (" + unique + " records: each id once)");
        String copies = text.replaceAll("(?s).*unique ids, ([\\d,]+) duplicates.*", "$1");
        assertThat(copies).isNotEqualTo("0");
        assertThat(text).contains("duplicates removed: " + copies + " of " + copies);
        assertThat(text).contains("stopped the broker and deleted its data");
    }
}
