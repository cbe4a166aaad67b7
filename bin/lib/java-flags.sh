# Sourced by bin/vectorbert, bench/run and bench/compare-onnx: the JVM flags vectorbert runs with,
# so what is benchmarked is what users run.
#
# - A small young generation: the weights (hundreds of MB of arrays) go straight to the old one
#   instead of being copied there, and few pages of short-lived objects stay resident. Forward
#   passes reuse their buffers and allocate only their output, so a young collection is rare and
#   short. Resident after loading bert-base-uncased (whole process): 535 MB with -Xmn32m, 521 with
#   16m, 511 with 8m; fill-mask end to end no slower. It is 24 MB now, for long runs (below).
# - The engine's methods compiled after a twentieth of the usual calls and loop iterations: the
#   Vector API is only fast once C2 has compiled it (interpreted, each vector operation allocates),
#   and a one-shot command spends most of its first pass waiting for that. Measured: fill-mask
#   end to end 0.95 x the time without it; steady-state passes and long batches no slower.
# - Long runs: the heap starts at 32 MB and grows with what the command holds, instead of starting
#   at the JVM's default 1/64 of the machine's memory (384 MB here), which the old generation can
#   never shrink below and whose pages a long run touches one by one: a 100,000-line MiniLM embed
#   went from 300 to 450 MB resident while its live data after a full collection stayed at 182 MB.
#   A young generation of 24 MB holds a forward pass's output (a 4,096-token pass of MiniLM is 6 MB,
#   of bert-base 13 MB; with 8 MB it went straight to the old generation), and the old generation is
#   kept between 10% and 30% free after a full collection (Serial's default: 40-70%). embed also
#   collects once per window of texts (EmbedCommand), so promoted garbage never makes it grow.
#   fill-mask on bert-base end to end: 2.6-3.2 s with -Xms32m, 2.9-3.7 s without (3 runs each, interleaved).
# - But the attention kernels (AttentionKernel, AttentionValues) at the usual counts: the engine keeps
#   its kernels out of C1 (KernelCompilation), so they are profiled by the interpreter, and at a twentieth
#   of the counts C2 compiled AttentionKernel.scores from a profile too thin to inline the Vector API's FMA:
#   every vector boxed, 30.5 MB of garbage per 1x128 pass of bert-base in steady state, against 0.40 MB at
#   the usual counts (per-thread allocation over 20 passes after 15 s; the other kernel classes at a
#   twentieth allocate no more).
java_flags=(--add-modules jdk.incubator.vector -XX:+UseSerialGC -Xms32m -Xmn24m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30
    -XX:CompileCommand=quiet "-XX:CompileCommand=CompileThresholdScaling,org.vectorbert.engine.*::*,0.05"
    "-XX:CompileCommand=CompileThresholdScaling,org.vectorbert.engine.AttentionKernel::*,1.0"
    "-XX:CompileCommand=CompileThresholdScaling,org.vectorbert.engine.AttentionValues::*,1.0")
