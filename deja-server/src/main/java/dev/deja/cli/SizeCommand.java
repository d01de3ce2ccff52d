package dev.deja.cli;

import picocli.CommandLine.Command;

/** Placeholder: replaced by the sizing command. */
@Command(name = "size", description = "Sizes a store for a workload and shows the formulas.")
final class SizeCommand implements Runnable {
    @Override
    public void run() {
        throw new UnsupportedOperationException("not yet");
    }
}
