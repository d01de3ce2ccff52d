package dev.deja.kafka.worker;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The values {@code deja kafka run}'s options take when the command line does not give them, layered as
 * {@code deja serve}'s are: an environment variable ({@code DEJA_KAFKA_} and the option's name in upper case with
 * underscores: {@code --application-id} is {@code DEJA_KAFKA_APPLICATION_ID}), then a key of the config file (the
 * option's name without the dashes), whose path is {@code --config} or {@code DEJA_KAFKA_CONFIG}; then the option's
 * own default. picocli asks only for options absent from the command line, so the command line wins.
 */
final class LayeredDefaults implements CommandLine.IDefaultValueProvider {

    static final String PREFIX = "DEJA_KAFKA_";
    private static final String CONFIG_OPTION = "--config";

    private final Supplier<CommandSpec> command;
    private final Supplier<Path> configOption;
    private final Map<String, String> environment;
    private Properties file;

    LayeredDefaults(Supplier<CommandSpec> command, Supplier<Path> configOption, Map<String, String> environment) {
        this.command = command;
        this.configOption = configOption;
        this.environment = environment;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || option.usageHelp()) {
            return null;
        }
        String key = option.longestName().substring(2);
        String value =
                nonBlank(environment.get(PREFIX + key.toUpperCase(Locale.ROOT).replace('-', '_')));
        if (value != null || option.longestName().equals(CONFIG_OPTION)) {
            return value;
        }
        return file().getProperty(key);
    }

    /** The config file's properties, read once; empty without a config file. */
    private Properties file() {
        if (file != null) {
            return file;
        }
        file = new Properties();
        Path path = configOption.get();
        if (path == null) {
            return file;
        }
        try (InputStream in = Files.newInputStream(path)) {
            file.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    command.get().commandLine(), "cannot read the config file " + path + ": " + e);
        }
        for (String key : file.stringPropertyNames()) {
            if (key.equals("config") || command.get().findOption("--" + key) == null) {
                throw new CommandLine.ParameterException(
                        command.get().commandLine(),
                        "unknown key '" + key + "' in " + path + " (keys are option names without the dashes)");
            }
        }
        return file;
    }

    private static String nonBlank(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
