package dev.deja.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

/**
 * The classes of another build's {@code benchmarks.jar}, isolated from this build's (its parent is the platform
 * loader), plus this build's {@link BuildBursts} defined among them: so the burst loops are the same bytecode for
 * every build, run against each build's filter, and compiled separately for each.
 */
final class BuildLoader extends URLClassLoader {

    private static final String BURSTS = BuildBursts.class.getName();

    BuildLoader(Path jar) throws MalformedURLException {
        super(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        if (!name.equals(BURSTS)) {
            return super.findClass(name);
        }
        // defined here, so it shares the package of the other build's KeyPool and BloomBenchmark
        try (InputStream in = BuildBursts.class.getResourceAsStream(BuildBursts.class.getSimpleName() + ".class")) {
            byte[] bytes = in.readAllBytes();
            return defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null && name.equals(BURSTS)) {
                c = findClass(name); // before the jar, which may hold its own copy
            }
            return c != null ? c : super.loadClass(name, resolve);
        }
    }
}
