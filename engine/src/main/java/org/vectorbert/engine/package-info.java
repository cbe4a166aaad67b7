/**
 * The BERT encoder on the Vector API: SIMD kernels, post-LN and pre-LN layers, the MLM and pooler
 * heads, batching, and the pipelines (fill-mask, embeddings) a library user calls.
 */
package org.vectorbert.engine;
