package org.vectorbert.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.BufferUtil;

/**
 * The client of a request waiting for its batch: whether it is still connected, and a way to hear
 * of its connection failing.
 *
 * <p>Jetty does not read an HTTP/1.1 connection while its request is being handled, so a client
 * that hangs up then goes unnoticed until the answer is written (measured: the failure listener
 * never fired for a closed socket). {@link #connected} therefore reads the connection itself, once
 * per pass and without blocking: end of stream means the client has gone. Bytes there can only be
 * a pipelined next request, which is then lost to Jetty; the answer closes the connection, as a
 * server may, so the client resends it.
 */
final class Client {
    private final Request request;
    private final EndPoint endPoint;
    private final AtomicBoolean pipelined = new AtomicBoolean();

    Client(Request request) {
        this.request = request;
        this.endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    }

    /** False once the client has closed its side (or the connection failed). Called by the inference thread. */
    boolean connected() {
        if (!endPoint.isOpen() || endPoint.isInputShutdown()) {
            return false;
        }
        try {
            ByteBuffer probe = BufferUtil.allocate(64);
            int n = endPoint.fill(probe);
            if (n > 0) {
                pipelined.set(true);
            }
            return n >= 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the connection must close after this answer (its next request was read by {@link #connected}). */
    boolean mustClose() {
        return pipelined.get();
    }

    /** {@code action} run if Jetty sees the request fail (an idle timeout, a reset while writing). */
    void onFailure(Runnable action) {
        request.addFailureListener(failure -> action.run());
    }
}
