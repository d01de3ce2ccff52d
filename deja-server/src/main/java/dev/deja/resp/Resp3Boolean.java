package dev.deja.resp;

import io.netty.handler.codec.redis.RedisMessage;

/**
 * The RESP3 boolean reply ({@code #t}, {@code #f}), which Netty's RESP2 codec lacks: RedisBloom answers
 * {@code BF.ADD}, {@code BF.EXISTS} and their multi forms with it under RESP3, and clients typed for it (node-redis)
 * read an integer there as a wrong answer.
 */
enum Resp3Boolean implements RedisMessage {
    TRUE,
    FALSE
}
