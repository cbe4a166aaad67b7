/**
 * From files on disk to a validated configuration and named tensors: config.json, memory-mapped
 * safetensors, TensorFlow checkpoint import, weight-name mapping, model directories and caches.
 */
package org.vectorbert.loader;
