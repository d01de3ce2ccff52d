package dev.deja.cli;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs the SIGUSR1 handler (snapshot on USR1, as the bloom HTTP server whose protocol deja follows does). It uses
 * {@code sun.misc.Signal}, a JDK-internal API (module jdk.unsupported) that has been stable since JDK 1.2 and is the
 * only way to catch a signal other than the shutdown ones in Java; on a platform without USR1 the handler is simply not
 * installed.
 *
 * <p>The API is reached by reflection, not named in the code: javac warns at every use of an internal API, the build
 * turns warnings into errors, and as of JDK 25 no {@code @SuppressWarnings} value silences that one.
 */
final class Signals {

    private static final Logger log = LoggerFactory.getLogger(Signals.class);

    private Signals() {}

    static void onUsr1(Runnable action) {
        try {
            Class<?> signalType = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            // handle(Signal) runs the action, the signal ignored
            MethodHandle run = MethodHandles.publicLookup()
                    .findVirtual(Runnable.class, "run", MethodType.methodType(void.class))
                    .bindTo(action);
            Object handler = MethodHandleProxies.asInterfaceInstance(
                    handlerType, MethodHandles.dropArguments(run, 0, signalType));
            Object usr1 = signalType.getConstructor(String.class).newInstance("USR1");
            signalType.getMethod("handle", signalType, handlerType).invoke(null, usr1, handler);
        } catch (InvocationTargetException e) {
            if (!(e.getCause() instanceof IllegalArgumentException)) {
                throw new IllegalStateException("SIGUSR1's handler could not be installed", e.getCause());
            }
            log.info("SIGUSR1 is not available here; snapshot with DJ.SNAPSHOT or POST /namespaces/{name}/snapshot");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("sun.misc.Signal is not usable in this JDK", e);
        }
    }
}
