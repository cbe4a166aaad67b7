# Sourced by bin/vectorbert and bench/run: sets java_bin to a Java 25 or newer, and java_home to its home (symlinks
# resolved), or exits 2.
# The runtime an unpacked download brings (bundled_runtime, set by bin/vectorbert there), else JAVA_HOME if set,
# else the java on the PATH, else Temurin 25 where Debian puts JDKs.
# The version comes from the JDK's release file, read by bash itself, so finding Java costs no extra JVM start and no
# process but one readlink for a java that is a symbolic link (each process cost a one-shot command 5-10 ms: see
# bin/vectorbert).
java_home_of() {
    local bin="$1"
    [[ -L "$bin" ]] && bin="$(readlink -f "$bin")"
    bin="${bin%/*}"
    candidate_home="${bin%/*}"
}
java_major() {
    local line
    java_home_of "$1"
    major=""
    if [[ -f "$candidate_home/release" ]]; then
        while IFS= read -r line || [[ -n "$line" ]]; do
            if [[ "$line" =~ ^JAVA_VERSION=\"([0-9]+) ]]; then
                major="${BASH_REMATCH[1]}"
                break
            fi
        done < "$candidate_home/release"
    else
        major="$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
    fi
}
# The java the PATH finds, as `command -v java` would, without a subshell.
path_java=""
IFS=: read -r -a path_dirs <<< "${PATH:-}"
for path_dir in "${path_dirs[@]}"; do
    if [[ -f "${path_dir:-.}/java" && -x "${path_dir:-.}/java" ]]; then
        path_java="${path_dir:-.}/java"
        break
    fi
done
java_bin=""
java_home=""
for candidate in "${bundled_runtime:+$bundled_runtime/bin/java}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$path_java" /usr/lib/jvm/temurin-25-jdk-*/bin/java; do
    [[ -n "$candidate" && -x "$candidate" ]] || continue
    java_major "$candidate"
    if [[ "${major:-0}" -ge 25 ]]; then
        java_bin="$candidate"
        java_home="$candidate_home"
        break
    fi
done
if [[ -z "$java_bin" ]]; then
    echo "${0##*/}: needs Java 25 or newer; set JAVA_HOME to a JDK 25 (e.g. /usr/lib/jvm/temurin-25-jdk-amd64)" >&2
    exit 2
fi
