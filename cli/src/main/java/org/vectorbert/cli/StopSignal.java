package org.vectorbert.cli;

import java.util.concurrent.CountDownLatch;

/**
 * SIGTERM, Ctrl-C or SIGHUP for a command that stops gracefully and chooses its own exit status.
 *
 * <p>The JDK's supported way to see those signals is a shutdown hook, but by the time hooks run the
 * JVM has fixed its status (143 for SIGTERM, 130 for Ctrl-C). So the hook tells the command, waits
 * until the command says it has stopped, and halts with the status the command chose.
 */
final class StopSignal {
    private final CountDownLatch received = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile int status;

    private StopSignal() {
    }

    /** Listens from now on; a signal then no longer ends the process until {@link #stopped} is called. */
    static StopSignal install() {
        StopSignal signal = new StopSignal();
        Runtime.getRuntime().addShutdownHook(new Thread(signal::onSignal, "vectorbert-stop"));
        return signal;
    }

    /** Waits for the signal. */
    void await() throws InterruptedException {
        received.await();
    }

    /** The command has stopped and said so: the process ends now, with this status. */
    void stopped(int exitStatus) {
        status = exitStatus;
        stopped.countDown();
    }

    private void onSignal() {
        received.countDown();
        while (stopped.getCount() > 0) {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                // The process is ending either way; only the command's stop decides when.
            }
        }
        Runtime.getRuntime().halt(status);
    }
}
