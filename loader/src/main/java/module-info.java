/**
 * From files on disk to a validated configuration and named tensors: config.json, memory-mapped
 * safetensors, model resolution (directories, the Hugging Face cache and hub). Checkpoints it does
 * not read itself come through converters found with ServiceLoader.
 */
module org.vectorbert.loader {
    requires transitive org.vectorbert.common;
    requires java.net.http;

    exports org.vectorbert.loader;

    uses org.vectorbert.loader.ModelConverter;
    uses org.vectorbert.loader.DefaultModelSource;
}
