import com.sun.jna.Callback;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.Random;

/**
 * The cost of one call from C into Java, alone: libc's qsort of 10,000 ints with a Java
 * comparator, through JNA (a Callback) or FFM (an upcall stub), in nanoseconds per
 * comparator call (the median of 7 rounds after 5 warm-up rounds). What a Java cost of
 * ppg_engine_train pays per sampled ranking beyond its own work, and so what a batch cost
 * callback (one upcall per batch) could save. Run by scripts/bench-java:
 * {@code java --enable-native-access=ALL-UNNAMED -cp <classes>:jna.jar Upcall jna|ffm}.
 */
@SuppressWarnings("restricted")
public final class Upcall {
  private Upcall() {}

  private static long calls;

  /** libc's qsort through JNA. */
  public interface C extends Library {
    interface Compare extends Callback {
      int invoke(Pointer a, Pointer b);
    }

    void qsort(Pointer base, long count, long size, Compare compare);
  }

  static int compare(MemorySegment a, MemorySegment b) {
    calls++;
    return Integer.compare(
        a.reinterpret(4).get(ValueLayout.JAVA_INT, 0), b.reinterpret(4).get(ValueLayout.JAVA_INT, 0));
  }

  public static void main(String[] args) throws Throwable {
    int n = 10_000;
    int[] data = new Random(1).ints(n).toArray();
    Runnable sort;
    if (args[0].equals("jna")) {
      C c = Native.load("c", C.class);
      Memory m = new Memory(4L * n);
      C.Compare cmp =
          (a, b) -> {
            calls++;
            return Integer.compare(a.getInt(0), b.getInt(0));
          };
      sort =
          () -> {
            m.write(0, data, 0, n);
            c.qsort(m, n, 4, cmp);
          };
    } else {
      Linker linker = Linker.nativeLinker();
      MethodHandle qsort =
          linker.downcallHandle(
              linker.defaultLookup().find("qsort").orElseThrow(),
              FunctionDescriptor.ofVoid(
                  ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                  ValueLayout.ADDRESS));
      MethodHandle compare =
          MethodHandles.lookup()
              .findStatic(
                  Upcall.class,
                  "compare",
                  MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
      MemorySegment stub =
          linker.upcallStub(
              compare,
              FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS),
              Arena.global());
      MemorySegment m = Arena.global().allocate(4L * n);
      sort =
          () -> {
            MemorySegment.copy(data, 0, m, ValueLayout.JAVA_INT, 0, n);
            try {
              qsort.invokeExact(m, (long) n, 4L, stub);
            } catch (Throwable t) {
              throw new IllegalStateException(t);
            }
          };
    }
    double[] rounds = new double[7];
    for (int r = -5; r < rounds.length; r++) {
      long before = calls;
      long t0 = System.nanoTime();
      for (int i = 0; i < 10; i++) {
        sort.run();
      }
      if (r >= 0) {
        rounds[r] = (double) (System.nanoTime() - t0) / (calls - before);
      }
    }
    Arrays.sort(rounds);
    System.out.printf("%s upcall %.1f ns%n", args[0], rounds[rounds.length / 2]);
  }
}
