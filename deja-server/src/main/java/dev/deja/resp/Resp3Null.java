package dev.deja.resp;

import io.netty.handler.codec.redis.RedisMessage;

/** The RESP3 null reply ({@code _}), which Netty's RESP2 codec lacks. */
enum Resp3Null implements RedisMessage {
    INSTANCE
}
