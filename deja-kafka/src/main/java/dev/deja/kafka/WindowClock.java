package dev.deja.kafka;

/**
 * Which time places an id in the window, and so when it ages out.
 */
public enum WindowClock {
    /**
     * The record's timestamp (event or log-append time): a record is a duplicate when a copy with the same id was
     * recorded with a timestamp less than one window before or after its own. Old records replayed from the start of
     * a topic are judged by their own times, so a replay gives the same answers; the store ages out by stream time
     * (the largest timestamp seen), and a record older than one window behind stream time is always new.
     */
    RECORD_TIME,
    /**
     * The wall-clock time at which the operator first saw the id: a record is a duplicate when its id was first
     * seen less than one window ago. Independent of producers' clocks and timestamps, but a replay of an old topic
     * sees all of it inside one window.
     */
    WALL_CLOCK
}
