/**
 * The attention explorer: {@link org.vectorbert.explorer.AttentionRun#capture} runs a text through the
 * model keeping every layer's attentions, queries and keys; {@link org.vectorbert.explorer.AttentionPage}
 * writes bertviz's three views as one self-contained HTML page, {@link org.vectorbert.explorer.AttentionPng}
 * the head view as a PNG.
 */
package org.vectorbert.explorer;
