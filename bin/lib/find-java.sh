# Sourced by bin/vectorbert and bench/run: sets java_bin to a Java 25 or newer, or exits 2.
# The runtime an unpacked download brings (bundled_runtime, set by bin/vectorbert there), else JAVA_HOME if set,
# else the java on the PATH, else Temurin 25 where Debian puts JDKs.
# The version comes from the JDK's release file, so finding Java costs no extra JVM start.
java_major() {
    local home release
    home="$(dirname "$(dirname "$(readlink -f "$1")")")"
    release="$home/release"
    if [[ -f "$release" ]]; then
        sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release"
    else
        "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
    fi
}
java_bin=""
for candidate in "${bundled_runtime:+$bundled_runtime/bin/java}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" /usr/lib/jvm/temurin-25-jdk-*/bin/java; do
    [[ -n "$candidate" && -x "$candidate" ]] || continue
    major="$(java_major "$candidate")"
    if [[ "${major:-0}" -ge 25 ]]; then
        java_bin="$candidate"
        break
    fi
done
if [[ -z "$java_bin" ]]; then
    echo "${0##*/}: needs Java 25 or newer; set JAVA_HOME to a JDK 25 (e.g. /usr/lib/jvm/temurin-25-jdk-amd64)" >&2
    exit 2
fi

