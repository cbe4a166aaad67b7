package org.vectorbert.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the fast lane ({@code mvn test}) fast: every test in any module's src/test/java that starts a process,
 * converts or loads a real model, or runs Spark, ONNX Runtime, a browser or Jazzer carries {@code @Tag("heavy")}
 * (on its class, or on the test method when only that method does it), so that it runs in the full lane
 * ({@code mvn verify}) only. It reads the sources: a marker in a helper class of the same module (one with no tests,
 * such as a shared model holder) marks whatever calls that helper, and a private method marks the tests that call it.
 * docs/testing.md gives the rule and the lists.
 */
class TestLanesTest {
    /** The one tag there is: the root pom's default Surefire run excludes it, its {@code heavy} run takes only it. */
    static final String TAG = "heavy";

    /** What makes a test heavy, with the words a failure gives. */
    static final Map<String, Pattern> MARKERS = new LinkedHashMap<>();

    static {
        MARKERS.put("starts a process", Pattern.compile("\\bProcessBuilder\\b|Runtime\\.getRuntime\\(\\)\\.exec\\b"));
        MARKERS.put("converts or loads a real model",
                Pattern.compile("\\bRealModels\\.|\\bDefaultModel\\.|all-minilm-l6-v2\\.onnx|vectorbert\\.test\\.minilm"));
        MARKERS.put("runs Spark", Pattern.compile("\\borg\\.apache\\.spark\\.|\\bSparkSession\\b"));
        MARKERS.put("runs ONNX Runtime",
                Pattern.compile("\\bai\\.onnxruntime\\.|\\bOrt(Session|Environment)\\b|dev\\.langchain4j\\.model\\.embedding\\.onnx"));
        MARKERS.put("drives a browser", Pattern.compile("(?i)\\bchromium\\b|\\bplaywright"));
        MARKERS.put("fuzzes with Jazzer", Pattern.compile("\\bcom\\.code_intelligence\\.jazzer\\b|@FuzzTest\\b"));
    }

    private static final Path SELF = Path.of("org", "vectorbert", "common", "TestLanesTest.java");
    private static final Pattern TEST_ANNOTATION =
            Pattern.compile("@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|FuzzTest)\\b");
    /** Methods a framework calls for the whole class: JUnit's lifecycle, Spring's properties of the test's context. */
    private static final Pattern LIFECYCLE = Pattern.compile("@(BeforeAll|BeforeEach|AfterAll|AfterEach|DynamicPropertySource)\\b");
    private static final Pattern ANY_TAG = Pattern.compile("@Tag\\(\\s*\"([^\"]*)\"\\s*\\)");
    private static final Pattern HEAVY_TAG = Pattern.compile("@Tag\\(\\s*\"" + TAG + "\"\\s*\\)");
    private static final Pattern METHOD_SOURCE = Pattern.compile("@MethodSource\\(([^)]*)\\)");
    private static final Pattern QUOTED = Pattern.compile("\"(?:[\\w.]+#)?(\\w+)\"");
    private static final Pattern ANNOTATION = Pattern.compile("@[\\w.]+");
    private static final Pattern METHOD_HEADER =
            Pattern.compile("(\\w+)\\s*\\([^()]*(\\([^()]*\\)[^()]*)*\\)\\s*(throws\\s+[\\w.,\\s]+)?$");
    private static final Pattern FIELD_HEADER = Pattern.compile("(\\w+)\\s*(=|;|$)");
    private static final Map<String, Pattern> NAMED = new java.util.concurrent.ConcurrentHashMap<>();

    /** The pattern of a name used as a word ({@code Helper}), or called ({@code name(}, {@code ::name}). */
    private static Pattern named(String regex) {
        return NAMED.computeIfAbsent(regex, Pattern::compile);
    }

    @Test
    void everyHeavyTestIsTaggedForTheFullLane() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        assertTrue(Files.readString(root.resolve("pom.xml")).contains("<module>common</module>"), root + " is not the repository root");
        List<Path> testRoots = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.sorted().toList()) {
                if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("src/test/java"))) {
                    testRoots.add(dir.resolve("src/test/java"));
                }
            }
        }
        assertTrue(testRoots.size() >= 10, "found only " + testRoots);
        List<String> problems = new ArrayList<>();
        long tests = 0;
        for (Path testRoot : testRoots) {
            Map<String, String> sources = new TreeMap<>();
            try (Stream<Path> files = Files.walk(testRoot)) {
                // Not this file: its samples carry the markers on purpose.
                for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.endsWith(SELF)).sorted().toList()) {
                    sources.put(root.relativize(f).toString(), Files.readString(f, StandardCharsets.UTF_8));
                }
            }
            tests += sources.values().stream().filter(s -> TEST_ANNOTATION.matcher(strip(s)[1]).find()).count();
            problems.addAll(check(sources));
        }
        assertTrue(tests > 50, "only " + tests + " test classes found");
        assertEquals("", String.join("\n", problems),
                "these tests belong in the full lane: add @Tag(\"" + TAG + "\") (org.junit.jupiter.api.Tag), see docs/testing.md");
    }

    @Test
    void theRootPomRunsTheTagInTheFullLaneOnly() throws IOException {
        String pom = Files.readString(Path.of("..", "pom.xml"));
        assertTrue(pom.contains("<excludedGroups>" + TAG + "</excludedGroups>"), "the default Surefire run excludes the tag");
        assertTrue(pom.contains("<groups>" + TAG + "</groups>"), "a Surefire run in the integration-test phase takes it");
    }

    @Test
    void anUntaggedHeavyTestIsNamed() {
        Map<String, String> module = Map.of(
                "m/src/test/java/p/Model.java", """
                        package p;
                        /** Converts the real model: a helper, with no tests. */
                        final class Model {
                            static Object get() { return org.vectorbert.convert.testing.RealModels.bertBaseUncased(); }
                        }
                        """,
                "m/src/test/java/p/MixedTest.java", """
                        package p;
                        import org.junit.jupiter.api.Tag;
                        import org.junit.jupiter.api.Test;
                        class MixedTest {
                            // new ProcessBuilder("in a comment") starts nothing
                            static final Runnable NOTHING = () -> { int a = 1; };
                            @Test
                            void small() { assertEquals(2, 1 + 1, "{ not a brace"); }
                            @Test
                            void viaHelper() { Model.get(); }
                            @Test
                            void viaPrivateMethod() { start(); }
                            @Tag("heavy")
                            @Test
                            void tagged() { start(); }
                            private void start() throws Exception { new ProcessBuilder("x").start(); }
                            @Test
                            void spark() { org.apache.spark.sql.SparkSession.builder(); }
                        }
                        """,
                "m/src/test/java/p/ClassWideTest.java", """
                        package p;
                        import org.junit.jupiter.api.BeforeAll;
                        import org.junit.jupiter.api.Test;
                        class ClassWideTest {
                            @BeforeAll
                            static void load() { Model.get(); }
                            @Test
                            void anything() { }
                        }
                        """,
                "m/src/test/java/p/FieldTest.java", """
                        package p;
                        import org.junit.jupiter.api.Test;
                        class FieldTest {
                            static final Object MODEL = Model.get();
                            @Test
                            void anything() { }
                        }
                        """,
                "m/src/test/java/p/TaggedTest.java", """
                        package p;
                        import org.junit.jupiter.api.Tag;
                        import org.junit.jupiter.api.Test;
                        /** Whole class. */
                        @Tag("heavy")
                        class TaggedTest {
                            static final Object MODEL = Model.get();
                            @Test
                            void anything() { }
                        }
                        """,
                "m/src/test/java/p/OtherTagTest.java", """
                        package p;
                        import org.junit.jupiter.api.Tag;
                        import org.junit.jupiter.api.Test;
                        @Tag("slow")
                        class OtherTagTest {
                            @Test
                            void anything() { }
                        }
                        """);
        assertEquals(List.of(
                        "m/src/test/java/p/ClassWideTest.java: ClassWideTest (load() converts or loads a real model, through Model)",
                        "m/src/test/java/p/FieldTest.java: FieldTest.MODEL converts or loads a real model, through Model (tag the class)",
                        "m/src/test/java/p/MixedTest.java: MixedTest.viaHelper() converts or loads a real model, through Model",
                        "m/src/test/java/p/MixedTest.java: MixedTest.viaPrivateMethod() starts a process, through start()",
                        "m/src/test/java/p/MixedTest.java: MixedTest.spark() runs Spark",
                        "m/src/test/java/p/OtherTagTest.java: @Tag(\"slow\"): the lanes know only @Tag(\"heavy\")"),
                check(new TreeMap<>(module)));
    }

    /** The problems of one module's test sources (path to text). */
    static List<String> check(Map<String, String> sources) {
        Map<String, Type> types = new TreeMap<>();
        sources.forEach((path, source) -> types.put(path, Type.parse(path, source)));
        // Helpers (files with no test) that are heavy, by class name: to a fixed point, as helpers call helpers.
        Map<String, String> heavyHelpers = new TreeMap<>();
        for (boolean grew = true; grew; ) {
            grew = false;
            for (Type t : types.values()) {
                if (!t.hasTests() && !heavyHelpers.containsKey(t.name)) {
                    String why = t.heavy(heavyHelpers).values().stream().findFirst().orElse(null);
                    if (why != null) {
                        heavyHelpers.put(t.name, why);
                        grew = true;
                    }
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Type> e : types.entrySet()) {
            Type t = e.getValue();
            String where = e.getKey() + ": ";
            Matcher tag = ANY_TAG.matcher(t.text);
            while (tag.find()) {
                if (!tag.group(1).equals(TAG)) {
                    problems.add(where + tag.group() + ": the lanes know only @Tag(\"" + TAG + "\")");
                }
            }
            if (!t.hasTests() || HEAVY_TAG.matcher(t.annotations).find()) {
                continue;
            }
            Map<Member, String> heavy = t.heavy(heavyHelpers);
            for (Member m : t.members) {
                String why = heavy.get(m);
                if (why == null) {
                    continue;
                }
                if (m.kind != Kind.METHOD) {
                    problems.add(where + t.name + "." + m.name + " " + why + " (tag the class)");
                } else if (LIFECYCLE.matcher(m.annotations).find() || m.name.equals(t.name)) {
                    problems.add(where + t.name + " (" + m.name + "() " + why + ")");
                } else if (TEST_ANNOTATION.matcher(m.annotations).find() && !HEAVY_TAG.matcher(m.annotations).find()) {
                    problems.add(where + t.name + "." + m.name + "() " + why);
                }
            }
        }
        return problems;
    }

    enum Kind { METHOD, FIELD, OTHER }

    /** A member of the file's top-level type: its annotations and header as code, its whole text with strings kept. */
    record Member(Kind kind, String name, String annotations, String code, String text) {}

    /** The file's top-level type, split into members. */
    record Type(String name, String annotations, String text, List<Member> members) {
        boolean hasTests() {
            return members.stream().anyMatch(m -> m.kind == Kind.METHOD && TEST_ANNOTATION.matcher(m.annotations).find());
        }

        /** The members that are heavy, each with why: a marker, a heavy helper class, or a call of a heavy member. */
        Map<Member, String> heavy(Map<String, String> heavyHelpers) {
            Map<Member, String> heavy = new LinkedHashMap<>();
            for (Member m : members) {
                String why = direct(m, heavyHelpers);
                if (why != null) {
                    heavy.put(m, why);
                }
            }
            for (boolean grew = true; grew; ) {
                grew = false;
                for (Member m : members) {
                    if (heavy.containsKey(m)) {
                        continue;
                    }
                    for (Map.Entry<Member, String> h : new ArrayList<>(heavy.entrySet())) {
                        if (h.getKey().kind == Kind.METHOD && calls(m, h.getKey().name)) {
                            String why = h.getValue().replaceFirst(", through .*", "");
                            heavy.put(m, why + ", through " + h.getKey().name + "()");
                            grew = true;
                            break;
                        }
                    }
                }
            }
            return heavy;
        }

        private String direct(Member m, Map<String, String> heavyHelpers) {
            for (Map.Entry<String, Pattern> marker : MARKERS.entrySet()) {
                if (marker.getValue().matcher(m.text).find()) {
                    return marker.getKey();
                }
            }
            for (Map.Entry<String, String> helper : heavyHelpers.entrySet()) {
                if (!helper.getKey().equals(name) && named("\\b" + helper.getKey() + "\\b").matcher(m.code).find()) {
                    return helper.getValue().replaceFirst(", through .*", "") + ", through " + helper.getKey();
                }
            }
            return null;
        }

        private static boolean calls(Member m, String method) {
            if (named("(?<![\\w.])" + method + "\\s*\\(|::" + method + "\\b").matcher(m.code).find()) {
                return true;
            }
            Matcher source = METHOD_SOURCE.matcher(m.annotations);
            while (source.find()) {
                Matcher q = QUOTED.matcher(source.group(1));
                while (q.find()) {
                    if (q.group(1).equals(method)) {
                        return true;
                    }
                }
            }
            return false;
        }

        static Type parse(String path, String source) {
            String[] stripped = strip(source);
            String text = stripped[0];
            String code = stripped[1];
            String file = Path.of(path).getFileName().toString().replace(".java", "");
            Matcher decl = Pattern.compile("\\b(class|record|enum|interface)\\s+" + file + "\\b").matcher(code);
            if (!decl.find()) {
                throw new IllegalStateException(path + ": no top-level type " + file);
            }
            int headerStart = Math.max(code.lastIndexOf(';', decl.start()), code.lastIndexOf('}', decl.start())) + 1;
            int open = code.indexOf('{', decl.end());
            List<Member> members = new ArrayList<>();
            int start = open + 1;
            int parens = 0;
            for (int i = start; i < code.length(); i++) {
                char c = code.charAt(i);
                if (c == '(') {
                    parens++;
                } else if (c == ')') {
                    parens--;
                } else if (c == ';' && parens == 0) {
                    members.add(member(code, text, start, i + 1, -1));
                    start = i + 1;
                } else if (c == '{' && parens == 0) {
                    int close = matching(code, i);
                    String header = withoutAnnotations(code.substring(start, i));
                    if (header.contains("=")) {
                        i = matching(code, i);    // a field whose initialiser has a body (a lambda, an array): on to its ';'
                        continue;
                    }
                    members.add(member(code, text, start, close + 1, i));
                    start = close + 1;
                    i = close;
                } else if (c == '}' && parens == 0) {
                    break;           // the end of the type
                }
            }
            members.removeIf(m -> m.code.isBlank());
            return new Type(file, annotationsOf(code, text, headerStart, decl.start()), text, members);
        }

        private static Member member(String code, String text, int start, int end, int brace) {
            String headerCode = code.substring(start, brace < 0 ? end : brace);
            String annotations = annotationsOf(code, text, start, brace < 0 ? end : brace);
            String header = withoutAnnotations(headerCode).strip();
            Kind kind;
            String name;
            Matcher method = METHOD_HEADER.matcher(header);
            Matcher field = FIELD_HEADER.matcher(header);
            if (brace >= 0 && !header.matches("(?s).*\\b(class|record|enum|interface)\\b.*") && method.find()) {
                kind = Kind.METHOD;
                name = method.group(1);
            } else if (brace < 0 && field.find()) {
                kind = header.contains("(") && !header.contains("=") ? Kind.OTHER : Kind.FIELD;
                name = field.group(1);
            } else {
                kind = Kind.OTHER;
                name = header.isEmpty() ? "{}" : header.replaceAll("\\s+", " ");
            }
            return new Member(kind, name, annotations, code.substring(start, end), text.substring(start, end));
        }

        /** The annotations between {@code from} and {@code to}, found in the code and given as text (their strings kept). */
        private static String annotationsOf(String code, String text, int from, int to) {
            StringBuilder out = new StringBuilder();
            Matcher a = ANNOTATION.matcher(code).region(from, to);
            while (a.find()) {
                int end = a.end();
                int i = end;
                while (i < to && Character.isWhitespace(code.charAt(i))) {
                    i++;
                }
                if (i < to && code.charAt(i) == '(') {
                    end = matching(code, i) + 1;
                }
                out.append(text, a.start(), end).append('\n');
            }
            return out.toString();
        }

        private static String withoutAnnotations(String header) {
            StringBuilder out = new StringBuilder(header);
            Matcher a = ANNOTATION.matcher(header);
            while (a.find()) {
                int end = a.end();
                int i = end;
                while (i < header.length() && Character.isWhitespace(header.charAt(i))) {
                    i++;
                }
                if (i < header.length() && header.charAt(i) == '(') {
                    end = matching(header, i) + 1;
                }
                for (int j = a.start(); j < end; j++) {
                    out.setCharAt(j, ' ');
                }
            }
            return out.toString();
        }

        /** The index of the bracket that closes the one at {@code open} ({@code (} or <code>{</code>), in code. */
        private static int matching(String code, int open) {
            char o = code.charAt(open);
            char c = o == '(' ? ')' : '}';
            int depth = 0;
            for (int i = open; i < code.length(); i++) {
                if (code.charAt(i) == o) {
                    depth++;
                } else if (code.charAt(i) == c && --depth == 0) {
                    return i;
                }
            }
            throw new IllegalStateException("unbalanced " + o + " at " + open);
        }
    }

    /**
     * The source twice, each as long as it: comments blanked (strings kept, to find markers in them), and comments
     * and the insides of string, text-block and char literals blanked (to find structure). Line breaks stay.
     */
    static String[] strip(String s) {
        StringBuilder text = new StringBuilder(s);
        StringBuilder code = new StringBuilder(s);
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (s.startsWith("//", i)) {
                int end = s.indexOf('\n', i);
                end = end < 0 ? s.length() : end;
                blank(text, i, end);
                blank(code, i, end);
                i = end;
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                end = end < 0 ? s.length() : end + 2;
                blank(text, i, end);
                blank(code, i, end);
                i = end;
            } else if (s.startsWith("\"\"\"", i)) {
                int end = i + 3;
                while (end < s.length() && !s.startsWith("\"\"\"", end)) {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                blank(code, i + 3, Math.min(end, s.length()));
                i = Math.min(end + 3, s.length());
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < s.length() && s.charAt(end) != c && s.charAt(end) != '\n') {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                blank(code, i + 1, Math.min(end, s.length()));
                i = Math.min(end + 1, s.length());
            } else {
                i++;
            }
        }
        return new String[] {text.toString(), code.toString()};
    }

    private static void blank(StringBuilder b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b.charAt(i) != '\n') {
                b.setCharAt(i, ' ');
            }
        }
    }
}
