package dev.deja.resp;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds RESP replies, choosing the RESP2 or RESP3 form of maps and nulls by the session's protocol. */
final class Replies {

    static final RedisMessage OK = new SimpleStringRedisMessage("OK");

    private Replies() {}

    /**
     * An error reply. Line breaks become spaces, as Redis makes them: an error is one line, and one that echoed a
     * client's CR or LF would end early and leave the rest to be read as the next reply.
     */
    static RedisMessage error(String message) {
        return new ErrorRedisMessage(oneLine(message));
    }

    /** A status reply, held to one line like an error. */
    static RedisMessage simple(String text) {
        return new SimpleStringRedisMessage(oneLine(text));
    }

    private static String oneLine(String text) {
        return text.indexOf('\r') < 0 && text.indexOf('\n') < 0
                ? text
                : text.replace('\r', ' ').replace('\n', ' ');
    }

    /** The integers 0 and 1, the answers of many commands: immutable, so one of each serves every reply. */
    private static final RedisMessage ZERO = new IntegerRedisMessage(0);

    private static final RedisMessage ONE = new IntegerRedisMessage(1);

    static RedisMessage integer(long value) {
        return value == 0 ? ZERO : value == 1 ? ONE : new IntegerRedisMessage(value);
    }

    static RedisMessage bulk(byte[] bytes) {
        return new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(bytes));
    }

    static RedisMessage bulk(String text) {
        return bulk(text.getBytes(StandardCharsets.UTF_8));
    }

    static RedisMessage array(List<RedisMessage> items) {
        return new ArrayRedisMessage(items);
    }

    /**
     * A yes/no answer as RedisBloom gives it: a boolean under RESP3, 1 or 0 under RESP2. {@code resp3} is the
     * protocol when the command ran, not when its reply is written (a HELLO may be pipelined after it).
     */
    static RedisMessage bool(boolean resp3, boolean value) {
        if (resp3) {
            return value ? Resp3Boolean.TRUE : Resp3Boolean.FALSE;
        }
        return integer(value ? 1 : 0);
    }

    /** Null: {@code _} under RESP3, the null bulk string under RESP2. */
    static RedisMessage nil(RespSession session) {
        return session.resp3() ? Resp3Null.INSTANCE : FullBulkStringRedisMessage.NULL_INSTANCE;
    }

    /** A map under RESP3, a flat array of alternating keys and values under RESP2 (as Redis does). */
    static RedisMessage map(RespSession session, List<RedisMessage> keysAndValues) {
        return session.resp3() ? new Resp3Map(keysAndValues) : array(keysAndValues);
    }

    /** Renders named fields (strings, integers, doubles, nested maps, nulls) as a map reply. */
    static RedisMessage fields(RespSession session, Map<String, ?> fields) {
        List<RedisMessage> entries = new ArrayList<>(fields.size() * 2);
        fields.forEach((name, value) -> {
            entries.add(bulk(name));
            entries.add(value(session, value));
        });
        return map(session, entries);
    }

    private static RedisMessage value(RespSession session, Object value) {
        return switch (value) {
            case null -> nil(session);
            case Long l -> integer(l);
            case Integer i -> integer(i);
            case Boolean b -> integer(b ? 1 : 0);
            case Map<?, ?> m -> {
                @SuppressWarnings("unchecked")
                Map<String, ?> nested = (Map<String, ?>) m;
                yield fields(session, nested);
            }
            case List<?> list ->
                array(list.stream().map(item -> value(session, item)).toList());
            default -> bulk(String.valueOf(value));
        };
    }
}
