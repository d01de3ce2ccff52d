/**
 * The durations and sizes people write ({@code 30m}, {@code 24h}, {@code 512m}, {@code 50g}), read and written the
 * same way by the command line, the config file and namespace parameters ({@link dev.deja.text.Units}).
 */
package dev.deja.text;
