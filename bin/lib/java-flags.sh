# Sourced by bin/vectorbert, bench/run and bench/compare-onnx: the JVM flags vectorbert runs with,
# so what is benchmarked is what users run.
#
# - A small young generation: the weights (hundreds of MB of arrays) go straight to the old one
#   instead of being copied there, and few pages of short-lived objects stay resident. Forward
#   passes reuse their buffers and allocate only their output, so a young collection is rare and
#   short. Resident after loading bert-base-uncased (whole process): 535 MB with -Xmn32m, 521 with
#   16m, 511 with 8m; fill-mask end to end no slower.
# - The engine's methods compiled after a twentieth of the usual calls and loop iterations: the
#   Vector API is only fast once C2 has compiled it (interpreted, each vector operation allocates),
#   and a one-shot command spends most of its first pass waiting for that. Measured: fill-mask
#   end to end 0.95 x the time without it; steady-state passes and long batches no slower.
# - Long runs: a young generation of 24 MB holds a forward pass's output (a 4,096-token pass of
#   MiniLM is 6 MB, of bert-base 13 MB), which with 8 MB went straight to the old generation as
#   garbage; and the old generation kept at most 30% free after a collection (10% at least) instead
#   of Serial's 40-70%. With -Xmn8m and the defaults, a 100,000-line MiniLM embed grew from 300 to
#   450 MB resident by 40% of the run (live data after a full collection: 189 MB).
java_flags=(--add-modules jdk.incubator.vector -XX:+UseSerialGC -Xmn24m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30
    -XX:CompileCommand=quiet "-XX:CompileCommand=CompileThresholdScaling,org.vectorbert.engine.*::*,0.05")
