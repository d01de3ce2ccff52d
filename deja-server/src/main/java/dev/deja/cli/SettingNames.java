package dev.deja.cli;

import dev.deja.options.LayeredDefaults;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The server's configuration errors in the words of the command line: the server names its settings as Java does
 * ({@code maxKeyBytes}, {@code idleTimeoutSeconds}), while the user wrote {@code --max-key-bytes} and
 * {@code --idle-timeout}, perhaps as a {@code DEJA_*} variable or a key of the config file, which the message then
 * names too.
 */
final class SettingNames {

    private SettingNames() {}

    /** The message with each of the command's settings named as its option, and where its value was given. */
    static String asOptions(String message, CommandSpec command, LayeredDefaults defaults) {
        StringBuilder said = new StringBuilder(message);
        for (OptionSpec option : command.options()) {
            String name = option.longestName();
            String camel = camel(name.substring(2));
            if (camel.equals(camel.toLowerCase(Locale.ROOT))) {
                continue; // one word (bind, fsync): the same either way, and too common a word to replace
            }
            for (String setting : List.of(camel + "Seconds", camel)) {
                Matcher at = Pattern.compile("\\b" + setting + "\\b").matcher(said);
                if (at.find()) {
                    said.replace(at.start(), at.end(), name + defaults.givenAs(name));
                    break;
                }
            }
        }
        return said.toString();
    }

    private static String camel(String kebab) {
        StringBuilder camel = new StringBuilder();
        for (String part : kebab.split("-", -1)) {
            camel.append(camel.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return camel.toString();
    }
}
