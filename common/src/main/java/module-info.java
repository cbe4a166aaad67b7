/** What every vectorbert module shares: the exception root, strict JSON reading, files that land whole. */
module org.vectorbert.common {
    requires transitive com.fasterxml.jackson.databind;

    exports org.vectorbert.common;
}
