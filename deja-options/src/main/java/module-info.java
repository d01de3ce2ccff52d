/**
 * How deja's commands ({@code deja serve}, {@code deja kafka run}) take the values of options the command line does
 * not give: from the environment, then from a config file ({@link dev.deja.options.LayeredDefaults}).
 */
module dev.deja.options {
    // its API is a picocli default value provider, over picocli's types
    requires transitive info.picocli;

    exports dev.deja.options;
}
