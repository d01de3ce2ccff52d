package dev.deja.http;

import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Netty's HTTP/1.1 request decoder and response encoder in one handler, as Netty's {@code HttpServerCodec} pairs
 * them, without the two things that codec adds per request which this server does not need:
 *
 * <ul>
 *   <li>it queues each request's method to tell the encoder which response answers a HEAD; here the request handler
 *       already gives a HEAD its headers and an empty body, so the encoder has nothing to leave out;
 *   <li>it checks each decoded request line again for spaces and line breaks, characters the decoder has just split
 *       the line on, so none can be left in the method or target (a check meant for requests an application builds
 *       itself).
 * </ul>
 *
 * Everything else (framing, limits, header validation, the responses' encoding) is Netty's own.
 */
final class RequestCodec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {

    RequestCodec(HttpDecoderConfig config) {
        super(new Decoder(config), new HttpResponseEncoder());
    }

    /** Netty's request decoder, making each request without checking its line a second time. */
    private static final class Decoder extends HttpRequestDecoder {

        Decoder(HttpDecoderConfig config) {
            super(config);
        }

        @Override
        protected HttpMessage createMessage(String[] initialLine) {
            return new DefaultHttpRequest(
                    HttpVersion.valueOf(initialLine[2]),
                    HttpMethod.valueOf(initialLine[0]),
                    initialLine[1],
                    headersFactory.newHeaders(),
                    /* validateRequestLine= */ false);
        }
    }
}
