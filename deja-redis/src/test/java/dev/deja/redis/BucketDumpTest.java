package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.redis.testing.RedisServerExtension;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A whole bucket as {@code RESTORE} takes it is byte for byte what Redis's own {@code DUMP} gives for the same hash
 * built with {@code HSET} (compression off), for every entry encoding a listpack has, and passes Redis's deep check
 * of restored payloads.
 */
class BucketDumpTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisCommands<byte[], byte[]> commands;

    @BeforeAll
    static void connect() {
        commands = redis.bytes();
        // DUMP compresses strings longer than 20 bytes when it saves space; the payloads built here never do.
        redis.cli("config", "set", "rdbcompression", "no");
        // Long values below stay in a listpack, so that their length encodings are compared too.
        redis.cli("config", "set", "hash-max-listpack-value", "10000");
        // RESTORE then checks every entry of a payload (its encodings, lengths, and that no field repeats), not only
        // its header as by default.
        redis.cli("config", "set", "sanitize-dump-payload", "yes");
    }

    @Test
    void sixteenByteIdsWithOwnersOfEveryLength() {
        Random random = new Random(3);
        List<byte[][]> entries = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            byte[] id = new byte[16];
            random.nextBytes(id);
            entries.add(new byte[][] {id, Ids.owner(i % 9 == 0 ? 0 : random.nextLong() >>> (8 * (i % 9)))});
        }
        assertSameAsRedis("uuids", entries);
    }

    @Test
    void integersInEveryEncodingAndStringsThatAreNotQuiteIntegers() {
        List<String> values = List.of(
                "0",
                "1",
                "127",
                "128",
                "-1",
                "-4096",
                "-4097",
                "4095",
                "4096",
                "32767",
                "32768",
                "-32768",
                "-32769",
                "8388607",
                "8388608",
                "-8388608",
                "-8388609",
                "2147483647",
                "2147483648",
                "-2147483648",
                "-2147483649",
                "9223372036854775807",
                "-9223372036854775808",
                "9223372036854775808",
                "-9223372036854775809",
                "01",
                "-0",
                "+1",
                " 1",
                "1 ",
                "1a",
                "-",
                "",
                "00",
                "12345678901234567890",
                "-1234567890123456789",
                "99999999999999999999");
        List<byte[][]> entries = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            entries.add(new byte[][] {ascii("f" + i), ascii(values.get(i))});
            entries.add(new byte[][] {ascii(values.get(i) + "#"), ascii(values.get(values.size() - 1 - i))});
        }
        entries.add(new byte[][] {ascii("7"), ascii("-7")}); // integer fields too
        entries.add(new byte[][] {ascii("-8388608"), ascii("x")});
        assertSameAsRedis("integers", entries);
    }

    @Test
    void stringsOfEveryLengthEncodingAndLongBackLengths() {
        List<byte[][]> entries = new ArrayList<>();
        for (int length : new int[] {1, 62, 63, 64, 65, 126, 127, 128, 200, 4094, 4095, 4096, 5000}) {
            byte[] value = new byte[length];
            Arrays.fill(value, (byte) 'v');
            entries.add(new byte[][] {ascii("len" + length), value});
        }
        assertSameAsRedis("lengths", entries);
    }

    @Test
    void theDeepCheckIsOnAndRefusesAFieldGivenTwice() {
        List<byte[][]> twice = List.of(new byte[][] {ascii("a"), ascii("1")}, new byte[][] {ascii("a"), ascii("2")});
        assertThatThrownBy(() -> commands.restore(ascii("twice"), payload(twice), new RestoreArgs().ttl(60_000)))
                .hasMessageContaining("Bad data format");
        assertThat(commands.exists(ascii("twice"))).isZero();
    }

    private static void assertSameAsRedis(String name, List<byte[][]> entries) {
        byte[] built = ascii("built:" + name);
        byte[] restored = ascii("restored:" + name);
        for (byte[][] e : entries) {
            commands.hset(built, e[0], e[1]);
        }
        assertThat(commands.objectEncoding(built)).isEqualTo("listpack");

        byte[] payload = payload(entries);

        HexFormat hex = HexFormat.of();
        assertThat(hex.formatHex(payload))
                .as("our payload against DUMP of the same hash")
                .isEqualTo(hex.formatHex(commands.dump(built)));

        assertThat(commands.restore(restored, payload, new RestoreArgs().ttl(60_000)))
                .isEqualTo("OK");
        assertThat(commands.objectEncoding(restored)).isEqualTo("listpack");
        for (byte[][] e : entries) {
            assertThat(commands.hget(restored, e[0])).isEqualTo(e[1]);
        }
        assertThat(commands.hlen(restored)).isEqualTo(entries.size());
    }

    private static byte[] payload(List<byte[][]> entries) {
        return BucketDump.of(new BucketDump.Entries() {
            @Override
            public int count() {
                return entries.size();
            }

            @Override
            public int maxLength() {
                return entries.stream()
                        .mapToInt(e -> Math.max(e[0].length, e[1].length))
                        .max()
                        .orElse(0);
            }

            @Override
            public int field(int j, byte[] into) {
                return copy(entries.get(j)[0], into);
            }

            @Override
            public int value(int j, byte[] into) {
                return copy(entries.get(j)[1], into);
            }
        });
    }

    private static int copy(byte[] from, byte[] into) {
        System.arraycopy(from, 0, into, 0, from.length);
        return from.length;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
