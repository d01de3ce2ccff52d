/**
 * picocli's default values for deja's commands, layered: command line, then an environment variable, then a key of
 * the config file, then the option's own default.
 */
package dev.deja.options;
