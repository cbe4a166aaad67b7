package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;

/**
 * The slow-path check, in JVMs of their own on the real all-MiniLM-L6-v2: with the kernels forced onto the
 * Vector API's fallback (C1 only: {@code -XX:TieredStopAtLevel=1}) it warns once, naming the kernels; with
 * plain flags (only {@code --add-modules}), after warm-up, every kernel is above its floor and nothing is
 * said. The JVMs print every kernel's speed, which is how the floors were chosen.
 */
@Tag("heavy")
class SlowPathCheckTest {
    private static final Pattern SPEED = Pattern.compile("(?m)^(MATRIX|ATTENTION|LAYER_NORM|ACTIVATION) ([0-9.E-]+)( slow)?$");

    @TempDir
    Path dir;

    @Test
    void kernelsOnTheSlowPathAreReportedOnce() throws Exception {
        ChildJvm run = run(List.of("-XX:TieredStopAtLevel=1"), 2);
        assertEquals(0, run.exit(), run.err());
        List<String> slow = speeds(run).stream().filter(s -> s.endsWith(" slow")).toList();
        assertEquals(4, slow.size(), "every kernel is slow with C1 alone: " + run.out());
        Matcher warning = Pattern.compile("WARNING: slow path: after warm-up, the matrix kernel \\(PanelTiles\\) at [0-9.e-]+ GFLOP/s,"
                + " the attention kernel \\(AttentionKernel\\) at .* far below the speed of code compiled by the JVM's C2 compiler")
                .matcher(run.err());
        assertTrue(warning.find(), run.err());
        assertEquals(1, run.err().split("slow path:", -1).length - 1, "said once: " + run.err());
        // What was measured, and what the JIT holds for the slow kernels' classes (kept out of C1 here, so never compiled).
        assertTrue(Pattern.compile("\\(Measured on \\d+ rows of \\d+ and \\d+ positions; compiled now: PanelTiles: none; "
                + "AttentionKernel: none; RowKernels: none\\.\\)").matcher(run.err()).find(), run.err());
    }

    @Test
    void plainFlagsReachC2SpeedAndSayNothing() throws Exception {
        ChildJvm run = run(List.of(), 15);
        assertEquals(0, run.exit(), run.err());
        assertEquals(4, speeds(run).size(), run.out());
        assertTrue(speeds(run).stream().noneMatch(s -> s.endsWith(" slow")), run.out());
        assertFalse(run.err().contains("slow path"), run.err());
        assertFalse(run.err().contains("could not keep the vector kernels out"), run.err());
    }

    private static List<String> speeds(ChildJvm run) {
        List<String> speeds = new ArrayList<>();
        Matcher m = SPEED.matcher(run.out());
        while (m.find()) {
            speeds.add(m.group());
        }
        return speeds;
    }

    private ChildJvm run(List<String> flags, double seconds) throws IOException, InterruptedException {
        return ChildJvm.run(dir, flags, SlowPathMain.class, RealModels.allMiniLm().toString(), Double.toString(seconds));
    }
}
