package dev.deja.options;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The values a command's options take when the command line does not give them: first an environment variable (the
 * command's prefix, {@code DEJA_} for {@code deja serve}, and the option's name in upper case with underscores:
 * {@code --http-port} is {@code DEJA_HTTP_PORT}), then a key of the config file (the option's name without the
 * dashes: {@code http-port=8889}), whose path is {@code --config} or the prefix's {@code CONFIG} variable
 * ({@code DEJA_CONFIG}); with neither, picocli falls back to the option's own default. picocli asks for them after it
 * has read the command line, and only for the options it did not find there, so the command line wins over the
 * environment, which wins over the file.
 *
 * <p>A value is checked here as the option's type would convert it, so that an error names where the value came
 * from ({@link #givenAs}); a file that cannot be read, or that has a key no option is named, is an error too.
 */
public final class LayeredDefaults implements CommandLine.IDefaultValueProvider {

    private static final String CONFIG_OPTION = "--config";

    private final String prefix;
    private final String configVariable;
    private final Supplier<CommandSpec> command;
    private final Supplier<Path> configOption;
    private final Map<String, String> environment;
    private final Map<String, String> sources = new HashMap<>();
    private Properties file;
    private Path filePath;

    /**
     * Defaults for {@code command}, whose {@code --config} value, once parsed, {@code configOption} gives (null when
     * it was not given), read from {@code environment}'s variables that start with {@code prefix} ({@code DEJA_}).
     */
    public LayeredDefaults(
            String prefix,
            Supplier<CommandSpec> command,
            Supplier<Path> configOption,
            Map<String, String> environment) {
        this.prefix = prefix;
        this.configVariable = prefix + "CONFIG";
        this.command = command;
        this.configOption = configOption;
        this.environment = environment;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || option.usageHelp()) {
            return null;
        }
        String name = option.longestName();
        if (name.equals(CONFIG_OPTION)) {
            return nonBlank(environment.get(configVariable));
        }
        String key = name.substring(2);
        String variable = prefix + key.toUpperCase(Locale.ROOT).replace('-', '_');
        String value = environment.get(variable);
        String source = "the environment variable " + variable;
        if (value == null) {
            Properties properties = file();
            value = properties == null ? null : properties.getProperty(key);
            source = "'" + key + "' in " + filePath;
        }
        if (value == null) {
            return null;
        }
        sources.put(name, source);
        check(option, value);
        return value;
    }

    /** Where an option not on the command line took its value, as " (given as ...)", or nothing. */
    public String givenAs(String option) {
        String source = sources.get(option);
        return source == null ? "" : " (given as " + source + ")";
    }

    /** The config file's properties, read once; null without a config file. */
    private Properties file() {
        if (file != null || filePath != null) {
            return file;
        }
        Path given = configOption.get();
        String fromEnvironment = nonBlank(environment.get(configVariable));
        filePath = given != null ? given : fromEnvironment != null ? Path.of(fromEnvironment) : null;
        if (filePath == null) {
            return null;
        }
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(filePath)) {
            properties.load(in);
        } catch (IOException | IllegalArgumentException e) {
            // IllegalArgumentException: a malformed \\uXXXX escape in the file
            throw error(
                    "cannot read the config file " + filePath + " (" + (given != null ? CONFIG_OPTION : configVariable)
                            + "): " + (e instanceof NoSuchFileException ? "no such file" : e.toString()));
        }
        for (String key : properties.stringPropertyNames()) {
            if (command.get().findOption("--" + key) == null || key.equals("config")) {
                throw error("unknown key '" + key + "' in " + filePath
                        + " (keys are option names without the dashes, like http-port)");
            }
        }
        file = properties;
        return file;
    }

    /** Refuses a value that the option's type could not take, naming where it came from. */
    private void check(OptionSpec option, String value) {
        Class<?> type = option.type();
        String problem = null;
        if (type == int.class || type == Integer.class) {
            try {
                Integer.parseInt(value.strip());
            } catch (NumberFormatException e) {
                problem = "'" + value + "' is not an int";
            }
        } else if ((type == boolean.class || type == Boolean.class)
                && !value.strip().equalsIgnoreCase("true")
                && !value.strip().equalsIgnoreCase("false")) {
            problem = "'" + value + "' is not a boolean (true or false)";
        }
        if (problem != null) {
            throw error("Invalid value for option '" + option.longestName() + "'" + givenAs(option.longestName()) + ": "
                    + problem);
        }
    }

    private CommandLine.ParameterException error(String message) {
        return new CommandLine.ParameterException(command.get().commandLine(), message);
    }

    private static String nonBlank(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
