/**
 * What every vectorbert module shares: {@link org.vectorbert.common.VectorbertException}, the root of
 * every error a user can meet; strict JSON reading; files that appear whole or not at all.
 */
package org.vectorbert.common;
