package org.vectorbert.convert;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.constant.ClassDesc;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.vectorbert.loader.LoaderException;

/**
 * What a langchain4j in-process embedding jar's model class embeds with, read from its bytecode: langchain4j's
 * {@code BgeSmallZhV15EmbeddingModel} and its kin load their export with
 * {@code loadFromJar("x.onnx", "x-tokenizer.json", PoolingMode.CLS)} (or {@code new OnnxBertBiEncoder(.., PoolingMode.MEAN)}
 * in older releases), so the constant strings and the {@code PoolingMode} field read name the files and the pooling.
 *
 * @param className      the model class, dotted ({@code dev.langchain4j.model.embedding.onnx.bgesmallzhv15.BgeSmallZhV15EmbeddingModel})
 * @param onnxEntry      the jar entry of its ONNX export
 * @param tokenizerEntry the jar entry of its tokenizer.json
 * @param pooling        {@code cls} or {@code mean}: the {@code PoolingMode} constant the class passes
 * @param quantised      whether the class is langchain4j's int8 variant ({@code ...QuantizedEmbeddingModel})
 */
record Langchain4jJar(String className, String onnxEntry, String tokenizerEntry, String pooling, boolean quantised) {
    private static final String MODEL_PACKAGE = "dev/langchain4j/model/embedding/";
    /** langchain4j's base class of in-process models, in 1.x and in 0.x. */
    private static final List<String> BASES = List.of("dev/langchain4j/model/embedding/onnx/AbstractInProcessEmbeddingModel",
            "dev/langchain4j/model/embedding/AbstractInProcessEmbeddingModel");

    /** Whether {@code zip} holds langchain4j classes at all (so that it is read as a langchain4j jar). */
    static boolean isLangchain4j(ZipFile zip) {
        return zip.stream().anyMatch(e -> e.getName().startsWith("dev/langchain4j/") && e.getName().endsWith(".class"));
    }

    /** The model class of {@code jar}; refused in one line naming what is missing when no class says how it embeds. */
    static Langchain4jJar read(Path jar, ZipFile zip) {
        for (ZipEntry entry : zip.stream().filter(e -> e.getName().startsWith(MODEL_PACKAGE) && e.getName().endsWith(".class")).toList()) {
            ClassModel model = parse(jar, zip, entry);
            if (model.superclass().isEmpty() || !BASES.contains(model.superclass().get().asInternalName())) {
                continue;
            }
            String name = model.thisClass().asInternalName().replace('/', '.');
            String onnx = null;
            String tokenizer = null;
            String pooling = null;
            for (MethodModel method : model.methods()) {
                if (method.code().isEmpty()) {
                    continue;
                }
                for (CodeElement e : method.code().get()) {
                    if (e instanceof ConstantInstruction c && c.constantValue() instanceof String s) {
                        if (s.endsWith(".onnx") && onnx == null) {
                            onnx = s;
                        } else if (s.endsWith("tokenizer.json") && tokenizer == null) {
                            tokenizer = s;
                        }
                    } else if (e instanceof FieldInstruction f && f.owner().asInternalName().endsWith("/PoolingMode")) {
                        pooling = f.name().stringValue().toLowerCase(Locale.ROOT);
                    }
                }
            }
            if (pooling == null) {
                throw new LoaderException(jar + ": its langchain4j model class " + name + " names no PoolingMode, which is where"
                        + " vectorbert reads langchain4j's pooling from; use a langchain4j release that has one (0.31 or later)");
            }
            if (!pooling.equals("cls") && !pooling.equals("mean")) {
                throw new LoaderException(jar + ": its langchain4j model class " + name + " pools by PoolingMode."
                        + pooling.toUpperCase(Locale.ROOT) + ", which vectorbert does not know (it knows CLS and MEAN)");
            }
            return new Langchain4jJar(name, entryOf(zip, onnx), entryOf(zip, tokenizer), pooling,
                    name.endsWith("QuantizedEmbeddingModel") || name.endsWith("QEmbeddingModel"));
        }
        throw new LoaderException(jar + " holds langchain4j classes but no in-process embedding model class (a subclass of"
                + " AbstractInProcessEmbeddingModel) to read its pooling from");
    }

    /** The jar entry a class loads by name, which langchain4j resolves next to the class or at the jar's root. */
    private static String entryOf(ZipFile zip, String name) {
        if (name == null) {
            return null;
        }
        String bare = name.startsWith("/") ? name.substring(1) : name;
        if (zip.getEntry(bare) != null) {
            return bare;
        }
        return zip.stream().map(ZipEntry::getName).filter(n -> n.endsWith("/" + bare)).findFirst().orElse(null);
    }

    private static ClassModel parse(Path jar, ZipFile zip, ZipEntry entry) {
        try (InputStream in = zip.getInputStream(entry)) {
            return ClassFile.of().parse(in.readAllBytes());
        } catch (IOException | IllegalArgumentException e) {
            throw new LoaderException(jar + ": cannot read its class " + entry.getName() + " (" + e.getMessage() + ")");
        }
    }

    /** The class's simple name, for messages. */
    String simpleName() {
        return ClassDesc.of(className).displayName();
    }
}
