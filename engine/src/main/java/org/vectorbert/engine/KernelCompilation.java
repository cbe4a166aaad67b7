package org.vectorbert.engine;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Keeps the Vector API kernels out of HotSpot's C1, in every JVM that loads a model, with no
 * command-line flag: a compiler directive ({@code c1: {Exclude: true}} for the classes holding vector
 * code), added at run time through the {@code DiagnosticCommand} platform MBean, the in-process form
 * of {@code jcmd PID Compiler.directives_add}.
 *
 * <p>Why: only C2 turns Vector API calls into SIMD instructions; C1 and the interpreter run the
 * API's Java fallback, which allocates every vector. Under the default tiered policy a kernel can stay
 * in C1 code for good (C1 gives up on the attention-score kernel, and C2's queue can be long), so
 * some starts never reach full speed; with the directive the kernels are interpreted until C2
 * compiles them, and every start does ({@code bench/startup-spread} shows the spread). The match is
 * the four classes with vector code only, so scalar loops still get C1's quick compilation.
 *
 * <p>A JVM without the {@code jdk.management} module (a trimmed jlink image) or that refuses the
 * directive gets one warning through {@code System.Logger} {@code org.vectorbert} saying what to do
 * ({@code -XX:-TieredCompilation} does the same job from the command line); {@link SlowPathCheck}
 * then tells whether a kernel really stayed slow.
 */
final class KernelCompilation {
    private static final System.Logger LOG = System.getLogger("org.vectorbert");

    /** The classes whose methods hold Vector API code (checked by a test against the sources). */
    static final List<String> KERNEL_CLASSES = List.of("PanelTiles", "AttentionKernel", "AttentionValues", "RowKernels", "VectorMath");

    /**
     * {@code -Dvectorbert.kernelDirective=off} leaves compilation to the JVM's flags, for a program that
     * manages it itself (with {@code -XX:-TieredCompilation}, say) and would rather not start the platform
     * MBean server (a few hundred milliseconds of CPU on a thread of its own). The
     * directive cannot come from the command line instead: {@code -XX:CompilerDirectivesFile} prints
     * "1 compiler directives added" on standard output, where the command's results go.
     */
    static final String SWITCH = "vectorbert.kernelDirective";

    /** The directive, started once per JVM: null once added, else why not. */
    private static CompletableFuture<String> added;
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private KernelCompilation() {}

    /**
     * Adds the directive on a thread of its own, so that loading the weights hides the platform MBean server's
     * start; {@link #await} before the first forward pass.
     */
    static synchronized void start() {
        if (added == null && "off".equals(System.getProperty(SWITCH))) {
            added = CompletableFuture.completedFuture(null);
        } else if (added == null) {
            added = CompletableFuture.supplyAsync(KernelCompilation::add,
                    task -> Thread.ofPlatform().daemon().name("vectorbert-compiler-directive").start(task));
        }
    }

    /** Whether {@link #ensure} has seen the directive through. */
    private static volatile boolean ensured;

    /**
     * Adds the directive if no one has, and waits for it: called before any vector kernel runs (a forward pass that
     * is not the plain first one, a matrix product outside a pass), since a kernel C1 compiled before the directive
     * keeps that code, four times slower. Once done, a volatile read.
     */
    static void ensure() {
        if (!ensured) {
            start();
            await();
            ensured = true;
        }
    }

    /** Waits for {@link #start}'s directive; says once if it could not be added. */
    static void await() {
        CompletableFuture<String> f;
        synchronized (KernelCompilation.class) {
            f = added;
        }
        if (f == null) {
            return;
        }
        String failure = f.join();
        if (failure != null && WARNED.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "could not keep the vector kernels out of the JVM's C1 compiler (" + failure
                    + "): in some starts a kernel stays in C1 code, which runs the Vector API's slow fallback, and"
                    + " throughput drops to a third or less; run the JVM with -XX:-TieredCompilation to avoid it");
        }
    }

    /** The directive's JSON: one entry matching every method of the kernel classes. */
    static String directive() {
        StringBuilder match = new StringBuilder();
        for (String c : KERNEL_CLASSES) {
            match.append(match.isEmpty() ? "" : ", ").append("\"org/vectorbert/engine/").append(c).append(".*\"");
        }
        return "[{ match: [" + match + "], c1: { Exclude: true } }]\n";
    }

    /**
     * What the JIT holds now for {@code className}'s methods (one of {@link #KERNEL_CLASSES}), from the
     * {@code DiagnosticCommand} MBean's {@code Compiler.codelist}: each method with code in use and its tier (C2 or
     * C1), for instance {@code "layerNormRow C2, layerNorm C1"}; "none" when no method has code (all interpreted);
     * empty when the JVM cannot say. For the slow-path warning, so that it tells a kernel that never reached C2 from
     * one C2 compiled and that still runs slowly.
     */
    static Optional<String> compiledNow(String className) {
        String codelist;
        try {
            codelist = String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerCodelist", new Object[0], new String[0]));
        } catch (JMException | RuntimeException | LinkageError e) {
            return Optional.empty();
        }
        // Lines of "compile-id level state class.method(signature) [addresses]", state 0 being code in use.
        String prefix = "org.vectorbert.engine." + className + ".";
        Map<String, Integer> best = new TreeMap<>();
        for (String line : codelist.lines().toList()) {
            String[] f = line.trim().split("\\s+", 5);
            if (f.length >= 4 && f[2].equals("0") && f[3].startsWith(prefix)) {
                String method = f[3].substring(prefix.length(), f[3].indexOf('(') < 0 ? f[3].length() : f[3].indexOf('('));
                try {
                    best.merge(method, Integer.parseInt(f[1]), Math::max);
                } catch (NumberFormatException e) {
                    // not a line of the table
                }
            }
        }
        if (best.isEmpty()) {
            return Optional.of("none");
        }
        StringBuilder b = new StringBuilder();
        best.forEach((method, level) -> b.append(b.isEmpty() ? "" : ", ").append(method).append(level == 4 ? " C2" : " C1"));
        return Optional.of(b.toString());
    }

    private static String add() {
        Path file = null;
        try {
            file = Files.createTempFile("vectorbert-directive", ".json");
            Files.writeString(file, directive());
            Object answer = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesAdd",
                    new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()});
            // HotSpot answers "1 compiler directives added"; anything else means it parsed none.
            String text = String.valueOf(answer).strip();
            return text.startsWith("1 compiler directives added") ? null : "the JVM answered: " + text.lines().findFirst().orElse("nothing");
        } catch (JMException | IOException | RuntimeException | LinkageError e) {
            return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a temporary file left behind is harmless
                }
            }
        }
    }
}
