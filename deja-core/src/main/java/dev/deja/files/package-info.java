/**
 * File-system steps that every durable store needs and the JDK leaves out, such as making a directory's renames and
 * deletions durable ({@link dev.deja.files.Directories}). Not part of deja-core's API: the package is exported only
 * to the other deja modules.
 */
package dev.deja.files;
