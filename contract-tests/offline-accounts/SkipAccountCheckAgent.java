// A Java agent that makes signal-cli's start-up account check a no-op, so a daemon whose accounts
// cannot reach the Signal server still loads them (0.13.19 otherwise exits with "Failed to load
// account file" in multi-account mode). It rewrites one method at class load with the JDK's own
// class-file API (java.lang.classfile, JDK 24+); signal-cli's own classes stay as shipped.
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

public final class SkipAccountCheckAgent {
    /** ManagerImpl.checkAccountState(): the server round trips run from SignalAccountFiles.initManager. */
    static final String CLASS = "org/asamk/signal/manager/internal/ManagerImpl";
    static final String METHOD = "checkAccountState";
    static final String DESCRIPTOR = "()V";

    private SkipAccountCheckAgent() {}

    public static void premain(String args, Instrumentation instrumentation) {
        instrumentation.addTransformer(new ClassFileTransformer() {
            @Override
            public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
                if (!CLASS.equals(name)) return null;
                try {
                    return rewrite(bytes);
                } catch (RuntimeException e) {
                    System.err.println("e2e-col offline agent: could not rewrite " + CLASS + ": " + e);
                    return null;
                }
            }
        });
    }

    static byte[] rewrite(byte[] bytes) {
        var file = ClassFile.of();
        var model = file.parse(bytes);
        var found = new boolean[] { false };
        ClassTransform transform = (builder, element) -> {
            if (element instanceof MethodModel method && method.methodName().equalsString(METHOD) && method.methodType().equalsString(DESCRIPTOR)) {
                found[0] = true;
                builder.withMethod(method.methodName(), method.methodType(), method.flags().flagsMask(), methodBuilder -> {
                    for (var part : method) if (!(part instanceof CodeModel)) methodBuilder.with(part);
                    methodBuilder.withCode(code -> code.return_());
                });
            } else {
                builder.with(element);
            }
        };
        var rewritten = file.transformClass(model, transform);
        if (!found[0]) throw new IllegalStateException(METHOD + DESCRIPTOR + " not found");
        // The fixture checks for this line: without it the daemon would die on its first account.
        System.err.println("e2e-col offline agent: " + CLASS.replace('/', '.') + "." + METHOD + " is a no-op");
        return rewritten;
    }
}
