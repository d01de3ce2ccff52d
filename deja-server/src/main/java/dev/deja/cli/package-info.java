/**
 * The {@code deja} command line, on picocli: {@code deja serve}, which runs the server with options that may also
 * come from {@code DEJA_*} variables and a {@code --config} file ({@code dev.deja.options.LayeredDefaults}), and
 * {@code deja size bloom|recent|exact}, which sizes a store for a workload and prints the formulas it used. Only
 * {@link dev.deja.cli.Main} is public.
 */
package dev.deja.cli;
