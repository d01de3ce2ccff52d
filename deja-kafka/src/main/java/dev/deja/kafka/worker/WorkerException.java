package dev.deja.kafka.worker;

/** Why the worker cannot start, in a sentence for the person who started it. */
final class WorkerException extends Exception {
    private static final long serialVersionUID = 1L;

    WorkerException(String message) {
        super(message);
    }
}
