package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Replies as clients read them: Netty's RESP2 framing, RESP3's additions, one buffer per flush, nothing leaked. */
class ReplyEncoderTest {

    private static final String MAP_ARRAY_AND_BOOLEAN =
            "%2\r\n$8\r\nCapacity\r\n:100\r\n$9\r\nExpansion\r\n_\r\n*3\r\n#t\r\n#f\r\n_\r\n#t\r\n";

    /** The RESP2 replies the server makes, made afresh on each call (the encoder releases what it writes). */
    private static List<RedisMessage> resp2Replies() {
        return List.of(
                new IntegerRedisMessage(1),
                new IntegerRedisMessage(0),
                new IntegerRedisMessage(-42),
                new IntegerRedisMessage(Long.MAX_VALUE),
                new SimpleStringRedisMessage("OK"),
                new ErrorRedisMessage("ERR unknown command 'NOPE'"),
                new FullBulkStringRedisMessage(Unpooled.copiedBuffer("héllo", StandardCharsets.UTF_8)),
                new FullBulkStringRedisMessage(Unpooled.EMPTY_BUFFER),
                FullBulkStringRedisMessage.NULL_INSTANCE,
                ArrayRedisMessage.NULL_INSTANCE,
                ArrayRedisMessage.EMPTY_INSTANCE,
                new ArrayRedisMessage(List.of(
                        new IntegerRedisMessage(7),
                        new ArrayRedisMessage(List.of(new SimpleStringRedisMessage("nested"))),
                        new FullBulkStringRedisMessage(Unpooled.copiedBuffer("x", StandardCharsets.US_ASCII)))));
    }

    @Test
    void resp2RepliesAreFramedAsNettysEncoderFramesThem() {
        EmbeddedChannel netty = new EmbeddedChannel(new RedisEncoder());
        write(netty, resp2Replies().toArray());
        netty.flush();
        EmbeddedChannel deja = new EmbeddedChannel(new ReplyEncoder());
        write(deja, resp2Replies().toArray());
        deja.flush();

        assertThat(text(outbound(deja))).isEqualTo(text(outbound(netty)));
    }

    @Test
    void theRepliesOfOneFlushLeaveAsOneBuffer() {
        EmbeddedChannel channel = new EmbeddedChannel(new ReplyEncoder());
        List<ChannelFuture> writes = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            writes.add(channel.write(new IntegerRedisMessage(i % 2)));
        }
        assertThat(channel.outboundMessages())
                .as("nothing leaves before the flush")
                .isEmpty();
        channel.flush();

        assertThat(channel.outboundMessages()).hasSize(1);
        assertThat(text(outbound(channel))).isEqualTo(":0\r\n:1\r\n".repeat(32));
        assertThat(writes).allSatisfy(write -> assertThat(write.isSuccess()).isTrue());
    }

    @Test
    void resp3TypesAreFramedAnywhereInAReply() {
        EmbeddedChannel channel = new EmbeddedChannel(new ReplyEncoder());
        write(
                channel,
                new Resp3Map(List.of(
                        new FullBulkStringRedisMessage(Unpooled.copiedBuffer("Capacity", StandardCharsets.US_ASCII)),
                        new IntegerRedisMessage(100),
                        new FullBulkStringRedisMessage(Unpooled.copiedBuffer("Expansion", StandardCharsets.US_ASCII)),
                        Resp3Null.INSTANCE)));
        write(channel, new ArrayRedisMessage(List.of(Resp3Boolean.TRUE, Resp3Boolean.FALSE, Resp3Null.INSTANCE)));
        write(channel, Resp3Boolean.TRUE);
        channel.flush();

        assertThat(text(outbound(channel))).isEqualTo(MAP_ARRAY_AND_BOOLEAN);
    }

    @Test
    void aLargeBulkStringIsWrittenWithoutACopyBetweenTheRepliesAroundIt() {
        byte[] dump = new byte[ReplyEncoder.COPY_LIMIT + 5];
        Arrays.fill(dump, (byte) 'd');
        ByteBuf content = Unpooled.wrappedBuffer(dump);
        EmbeddedChannel channel = new EmbeddedChannel(new ReplyEncoder());
        write(channel, new SimpleStringRedisMessage("before"));
        write(channel, new FullBulkStringRedisMessage(content));
        write(channel, new SimpleStringRedisMessage("after"));
        channel.flush();

        assertThat(channel.outboundMessages()).hasSize(3);
        ByteBuf head = channel.readOutbound();
        ByteBuf body = channel.readOutbound();
        ByteBuf tail = channel.readOutbound();
        assertThat(body.array()).as("the content's own bytes").isSameAs(dump);
        assertThat(text(head) + text(body) + text(tail))
                .isEqualTo("+before\r\n$" + dump.length + "\r\n" + new String(dump, StandardCharsets.US_ASCII)
                        + "\r\n+after\r\n");
        assertThat(content.refCnt()).as("released once written and read").isZero();
    }

    @Test
    void contentIsReleasedOnceWritten() {
        ByteBuf small = Unpooled.directBuffer(8).writeBytes(new byte[] {1, 2, 3});
        ByteBuf inArray = Unpooled.directBuffer(8).writeBytes(new byte[] {4});
        ByteBuf inMap = Unpooled.directBuffer(8).writeBytes(new byte[] {5});
        EmbeddedChannel channel = new EmbeddedChannel(new ReplyEncoder());
        write(channel, new FullBulkStringRedisMessage(small));
        write(channel, new ArrayRedisMessage(List.of(new FullBulkStringRedisMessage(inArray))));
        write(channel, new Resp3Map(List.of(new FullBulkStringRedisMessage(inMap), new IntegerRedisMessage(1))));
        channel.flush();
        text(outbound(channel));

        assertThat(small.refCnt()).isZero();
        assertThat(inArray.refCnt()).isZero();
        assertThat(inMap.refCnt()).isZero();
    }

    @Test
    void aMessageThatIsNoReplyGoesAfterTheRepliesBeforeIt() {
        EmbeddedChannel channel = new EmbeddedChannel(new ReplyEncoder());
        write(channel, new SimpleStringRedisMessage("OK"));
        write(channel, Unpooled.copiedBuffer("raw", StandardCharsets.US_ASCII));
        write(channel, new IntegerRedisMessage(3));
        channel.flush();

        assertThat(text(outbound(channel))).isEqualTo("+OK\r\nraw:3\r\n");
    }

    @Test
    void aReplyWithNoEncodingFailsItsWriteAndEndsTheConnection() {
        EmbeddedChannel channel = new EmbeddedChannel(new ReplyEncoder());
        ChannelFuture before = channel.write(new SimpleStringRedisMessage("OK"));
        ChannelFuture unknown = channel.write(new InlineCommandRedisMessage("PING"));

        assertThat(unknown.isSuccess()).isFalse();
        assertThat(unknown.cause()).hasMessageContaining("no RESP encoding");
        assertThat(before.isDone() && !before.isSuccess())
                .as("the reply before it never left")
                .isTrue();
        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.outboundMessages()).isEmpty();
    }

    private static void write(EmbeddedChannel channel, Object... messages) {
        for (Object message : messages) {
            ChannelFuture unused = channel.write(message); // a failure shows in what the channel wrote
        }
    }

    private static ByteBuf outbound(EmbeddedChannel channel) {
        ByteBuf all = Unpooled.buffer();
        for (Object message; (message = channel.readOutbound()) != null; ) {
            ByteBuf part = (ByteBuf) message;
            all.writeBytes(part);
            part.release();
        }
        return all;
    }

    /** The bytes as text, and the buffer released. */
    private static String text(ByteBuf buffer) {
        try {
            return buffer.toString(StandardCharsets.UTF_8);
        } finally {
            buffer.release();
        }
    }
}
