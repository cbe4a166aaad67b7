package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;

/** The compiler directive that keeps the vector kernels out of C1, added with no JVM flag. */
class KernelCompilationTest {
    /** A PrintCompilation line: id, flags, tier, method. */
    private static final Pattern COMPILED = Pattern.compile("(?m)^\\s*\\d+\\s+\\d+\\s+[%sbn! ]*\\s([0-4])\\s+(org\\.vectorbert\\.engine\\.(\\w+)::\\w+)");

    private static final Pattern VECTOR_IMPORT = Pattern.compile("import jdk\\.incubator\\.vector\\.(?!VectorShape;)");

    @TempDir
    Path dir;

    /** A float32 tile of either width: f32R4V4 on AVX-512 (four-vector panels), f32R6V2 on AVX2 (two-vector ones). */
    private static final Pattern A_TILE = Pattern.compile("org\\.vectorbert\\.engine\\.PanelTiles::f32R\\dV\\d ");

    @Test
    void theDirectiveNamesEveryClassWithVectorCode() throws IOException {
        Set<String> withVectors = new TreeSet<>();
        try (Stream<Path> sources = Files.list(Path.of("src/main/java/org/vectorbert/engine"))) {
            for (Path source : sources.toList()) {
                // Vector code: any of the API's types but VectorShape, which Lanes reads for the width alone.
                if (VECTOR_IMPORT.matcher(Files.readString(source)).find()) {
                    withVectors.add(source.getFileName().toString().replace(".java", ""));
                }
            }
        }
        assertEquals(withVectors, new TreeSet<>(KernelCompilation.KERNEL_CLASSES));
    }

    @Tag("heavy")
    @Test
    void withPlainFlagsTheKernelsAreCompiledByC2AloneAndC1TakesTheRest() throws Exception {
        ChildJvm run = ChildJvm.run(dir, List.of("-XX:+PrintCompilation"), SlowPathMain.class, RealModels.allMiniLm().toString(), "6");
        assertEquals(0, run.exit(), run.err());
        Set<String> kernelTiers = new TreeSet<>();
        Set<String> c1Elsewhere = new TreeSet<>();
        Matcher m = COMPILED.matcher(run.out());
        while (m.find()) {
            int tier = Integer.parseInt(m.group(1));
            if (KernelCompilation.KERNEL_CLASSES.contains(m.group(3))) {
                if (tier != 4) {
                    kernelTiers.add(m.group(2) + " at tier " + tier);
                }
            } else if (tier >= 1 && tier <= 3) {
                c1Elsewhere.add(m.group(2));
            }
        }
        assertEquals(Set.of(), kernelTiers, "no kernel in C1's tiers");
        assertTrue(A_TILE.matcher(run.out()).find(), "a matrix tile reached C2");
        assertFalse(c1Elsewhere.isEmpty(), "the rest of the engine still gets C1");
        assertFalse(run.err().contains("could not keep"), run.err());
    }

    @Tag("heavy")
    @Test
    void aMatrixProductBeforeAnyModelWaitsForTheDirectiveToo() throws Exception {
        // The directive comes with the first pass that runs vector kernels, and with any matrix product outside a pass:
        // a benchmark that timed DenseLayer before loading a model kept C1's code for the tiles (4 x slower passes).
        ChildJvm run = ChildJvm.run(dir, List.of("-XX:+PrintCompilation"), DenseFirstMain.class, "4");
        assertEquals(0, run.exit(), run.err());
        Set<String> kernelTiers = new TreeSet<>();
        Matcher m = COMPILED.matcher(run.out());
        while (m.find()) {
            if (KernelCompilation.KERNEL_CLASSES.contains(m.group(3)) && !m.group(1).equals("4")) {
                kernelTiers.add(m.group(2) + " at tier " + m.group(1));
            }
        }
        assertEquals(Set.of(), kernelTiers, "no kernel in C1's tiers");
        assertTrue(A_TILE.matcher(run.out()).find(), "a matrix tile reached C2");
    }

    @Tag("heavy")
    @Test
    void offLeavesCompilationToTheJvm() throws Exception {
        ChildJvm run = ChildJvm.run(dir, List.of("-XX:+PrintCompilation", "-Dvectorbert.kernelDirective=off"), SlowPathMain.class,
                RealModels.allMiniLm().toString(), "3");
        assertEquals(0, run.exit(), run.err());
        Matcher m = COMPILED.matcher(run.out());
        boolean kernelInC1 = false;
        while (m.find()) {
            kernelInC1 |= KernelCompilation.KERNEL_CLASSES.contains(m.group(3)) && !m.group(1).equals("4") && !m.group(1).equals("0");
        }
        assertTrue(kernelInC1, "without the directive, C1 compiles kernels as the tiered policy does");
        assertFalse(run.err().contains("could not keep"), run.err());
    }

    @Tag("heavy")
    @Test
    void aJvmThatRefusesTheDirectiveGetsOneWarning() throws Exception {
        // HotSpot's own limit on directives, here one (its default one): the add is refused as on a JVM that cannot take it.
        ChildJvm run = ChildJvm.run(dir, List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:CompilerDirectivesLimit=1"), SlowPathMain.class,
                RealModels.allMiniLm().toString(), "0");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.err().contains("WARNING: could not keep the vector kernels out of the JVM's C1 compiler (the JVM answered: "
                + "Could not add 1 more directives. Currently 1/1 directives.): in some starts a kernel stays in C1 code"), run.err());
        assertEquals(1, run.err().split("could not keep", -1).length - 1, run.err());
    }
}
