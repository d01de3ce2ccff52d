package dev.deja.resp;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.List;

/**
 * A RESP3 map reply ({@code %<n>}), which Netty's RESP2 codec lacks; entries alternate key, value.
 *
 * @param entries keys and values, alternating
 */
record Resp3Map(List<RedisMessage> entries) implements RedisMessage {}
