package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The checked-in tile kernels are exactly what their generator writes, so they cannot drift apart. */
class PanelTilesTest {
    @Test
    void checkedInTilesAreTheGeneratorsOutput() throws IOException {
        Path file = Path.of("src/main/java/org/vectorbert/engine/PanelTiles.java");
        assertEquals(PanelTilesGenerator.source(), Files.readString(file),
                "PanelTiles.java was edited by hand or the generator changed; regenerate it (see PanelTilesGenerator)");
    }
}
