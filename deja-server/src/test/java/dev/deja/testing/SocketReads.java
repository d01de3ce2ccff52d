package dev.deja.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Reading a server's replies off a raw socket, as a client that speaks the protocol by hand does. */
public final class SocketReads {

    private SocketReads() {}

    /** One line, without its CR LF (or bare LF); what came before the end of the stream if it ends first. */
    public static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    /** Everything the server sends until it closes the connection, or until the socket's read timeout. */
    public static String readAll(Socket socket) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            InputStream in = socket.getInputStream();
            int n;
            while ((n = in.read(buffer)) > 0) {
                bytes.write(buffer, 0, n);
            }
        } catch (IOException closedOrTimedOut) {
            // a reset after the reply, or a server that said nothing more: what came is what counts
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }
}
