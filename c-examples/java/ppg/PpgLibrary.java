package ppg;

import com.sun.jna.Callback;
import com.sun.jna.IntegerType;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.ByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * The C API of include/ppg.h, mapped one to one with JNA (the header is the manual). Every
 * function returns a ppg_status as an {@code int}; {@link Ppg} turns them into exceptions.
 *
 * <p>Which {@code libppg.so} is loaded: the one in {@code jna.library.path} when that is set;
 * else the one the jar carries for this platform (JNA's resource path, {@code
 * linux-x86-64/libppg.so} in the released jar), which is the version of these classes; else,
 * or when that copy cannot be loaded (JNA's temporary folder mounted noexec), the system's
 * {@link #SONAME} ({@code LD_LIBRARY_PATH}, the loader's folders). When none loads, the error
 * says what to set.
 *
 * <p>The carried copy is written to JNA's temporary folder ({@code jna.tmpdir}, else {@code
 * ~/.cache/JNA/temp}) as {@code ppg-<pid>-<n>-libppg.so} and deleted as soon as it is loaded
 * (the mapping stays), so a JVM killed with SIGKILL leaves at most a copy it had not loaded
 * yet; the next load removes the copies of processes that no longer run.
 */
public interface PpgLibrary extends Library {
  /** The library's SONAME, the system copy this version of the classes can use. */
  String SONAME = "libppg.so.0.2";

  PpgLibrary INSTANCE = load();

  private static PpgLibrary load() {
    if (System.getProperty("jna.library.path") != null) {
      return Native.load("ppg", PpgLibrary.class);
    }
    // JNA's own order would try the system's folders before the jar: an older libppg
    // installed there would win over the one built with these classes.
    String resource = Platform.RESOURCE_PREFIX + "/" + copyName();
    URL carried = PpgLibrary.class.getClassLoader().getResource(resource);
    if (carried == null) {
      return system(
          "the class path holds no " + resource + " (the released jar carries linux-x86-64 only)",
          null);
    }
    File dir = null;
    File copy = null;
    try {
      dir = tempDir();
      sweep(dir);
      String pid = String.valueOf(ProcessHandle.current().pid());
      copy = File.createTempFile("ppg-" + pid + "-", "-" + copyName(), dir);
      try (InputStream in = carried.openStream()) {
        Files.copy(in, copy.toPath(), StandardCopyOption.REPLACE_EXISTING);
      }
      return Native.load(copy.getAbsolutePath(), PpgLibrary.class);
    } catch (IOException | UnsatisfiedLinkError e) {
      return system(
          "the jar's copy could not be loaded from "
              + (dir != null ? dir : "JNA's temporary folder")
              + " ("
              + e.getMessage()
              + "; a folder mounted noexec cannot hold libraries)",
          e);
    } finally {
      // Loaded (mapped) or not, the file is no longer needed.
      if (copy != null && !copy.delete()) {
        copy.deleteOnExit();
      }
    }
  }

  /**
   * JNA's temporary folder, by JNA's rule (its own function is not public): {@code
   * jna.tmpdir}, else {@code $XDG_CACHE_HOME/JNA/temp} ({@code ~/.cache/JNA/temp}), else
   * {@code java.io.tmpdir}.
   */
  private static File tempDir() throws IOException {
    String set = System.getProperty("jna.tmpdir");
    File dir;
    if (set != null) {
      dir = new File(set);
    } else {
      String xdg = System.getenv("XDG_CACHE_HOME");
      File cache =
          xdg == null || xdg.isEmpty()
              ? new File(System.getProperty("user.home"), ".cache")
              : new File(xdg);
      dir = new File(cache, "JNA/temp");
    }
    dir.mkdirs();
    if (set == null && !(dir.isDirectory() && dir.canWrite())) {
      dir = new File(System.getProperty("java.io.tmpdir"));
    }
    if (!dir.isDirectory()) {
      throw new IOException("no folder " + dir);
    }
    return dir;
  }

  /** The file name of the library, {@code libppg.so} on Linux. */
  private static String copyName() {
    return System.mapLibraryName("ppg");
  }

  /** The system's {@link #SONAME}, or an error saying why the jar's copy was not used. */
  private static PpgLibrary system(String whyNotTheJars, Throwable cause) {
    try {
      return Native.load(SONAME, PpgLibrary.class);
    } catch (UnsatisfiedLinkError noSystemLibrary) {
      UnsatisfiedLinkError e =
          new UnsatisfiedLinkError(
              "libppg for platform "
                  + Platform.RESOURCE_PREFIX
                  + " not loaded: "
                  + whyNotTheJars
                  + ", and the system has no "
                  + SONAME
                  + ". Set -Djna.tmpdir=<a folder where libraries may be loaded from>,"
                  + " or install libppg (scripts/install) or build it and run with"
                  + " -Djna.library.path=<its folder>");
      if (cause != null) {
        e.addSuppressed(cause);
      }
      e.addSuppressed(noSystemLibrary);
      throw e;
    }
  }

  /** Removes the copies left in {@code dir} by processes that no longer run (SIGKILL). */
  private static void sweep(File dir) {
    File[] left =
        dir.listFiles((d, name) -> name.startsWith("ppg-") && name.endsWith("-" + copyName()));
    if (left == null) {
      return;
    }
    for (File f : left) {
      String[] parts = f.getName().split("-", 3);
      try {
        if (ProcessHandle.of(Long.parseLong(parts[1])).isEmpty()) {
          f.delete();
        }
      } catch (NumberFormatException notOurs) {
        // Another program's file of a similar name: left alone.
      }
    }
  }

  // ppg_status
  int PPG_STATUS_OK = 0;
  int PPG_STATUS_NULL_PARAMETER = 1;
  int PPG_STATUS_INVALID_ARGUMENT = 2;
  int PPG_STATUS_CAPACITY = 3;
  int PPG_STATUS_MEMORY_TOO_SMALL = 4;
  int PPG_STATUS_MISALIGNED = 5;
  int PPG_STATUS_NOT_PERMUTATION = 6;
  int PPG_STATUS_ITEM_OUT_OF_RANGE = 7;
  int PPG_STATUS_DUPLICATE_ITEM = 8;
  int PPG_STATUS_UNKNOWN_ITEM = 9;
  int PPG_STATUS_NOT_FINITE = 10;
  int PPG_STATUS_NO_QUERY = 11;
  int PPG_STATUS_NO_PENDING_BATCH = 12;
  int PPG_STATUS_UNKNOWN_SAMPLE = 13;
  int PPG_STATUS_UNSUPPORTED = 14;
  int PPG_STATUS_NO_RESULT = 15;
  int PPG_STATUS_ALLOCATION_FAILED = 16;
  int PPG_STATUS_PANIC = 17;
  int PPG_STATUS_VERSION_MISMATCH = 18;

  // ppg_method, ppg_sampler, ppg_gradient, ppg_metric, ppg_rank_start
  int PPG_METHOD_PPG = 0;
  int PPG_METHOD_PL = 1;
  int PPG_SAMPLER_UNCORRECTED = 0;
  int PPG_SAMPLER_CORRECTED = 1;
  int PPG_GRADIENT_APPROXIMATE = 0;
  int PPG_GRADIENT_EXACT = 1;
  int PPG_METRIC_DTR = 0;
  int PPG_METRIC_EEL = 1;
  int PPG_METRIC_NDCG = 2;
  int PPG_METRIC_DTR_NDCG_MIX = 3;
  int PPG_METRIC_EEL_NDCG_MIX = 4;
  int PPG_METRIC_EXPECTED_EXPOSURE = 5;
  int PPG_METRIC_AWRF = 6;
  int PPG_RANK_START_ZERO = 0;
  int PPG_RANK_START_ONE = 1;

  /** C's {@code size_t}. */
  final class SizeT extends IntegerType {
    private static final long serialVersionUID = 1L;

    public SizeT() {
      this(0);
    }

    public SizeT(long value) {
      super(Native.SIZE_T_SIZE, value, true);
    }
  }

  /** A {@code size_t *} output. */
  final class SizeTByReference extends ByReference {
    public SizeTByReference() {
      super(Native.SIZE_T_SIZE);
    }

    public long getValue() {
      return Native.SIZE_T_SIZE == 8
          ? getPointer().getLong(0)
          : getPointer().getInt(0) & 0xffffffffL;
    }
  }

  /** ppg_item. Arrays of it must be contiguous: make them with {@code new Item().toArray(n)}. */
  @Structure.FieldOrder({"id", "utility", "group"})
  class Item extends Structure {
    public long id;
    public double utility;
    public int group;
  }

  /**
   * ppg_train_config; C's {@code bool} fields are bytes (any byte but 0 is true). Filled by {@code
   * ppg_train_config_init(c, new SizeT(c.size()))}, which sets {@code struct_size}.
   */
  @Structure.FieldOrder({
    "struct_size", "learning_rate", "epochs", "batch", "patience", "clamp_min", "clamp_max", "sampler",
    "gradient", "baseline", "score_input", "initial_weight", "pl_learning_rate", "grow",
    "intra", "hold", "certify", "certify_tolerance"
  })
  class TrainConfig extends Structure {
    public int struct_size;
    public double learning_rate;
    public int epochs;
    public SizeT batch = new SizeT();
    public int patience;
    public double clamp_min;
    public double clamp_max;
    public int sampler;
    public int gradient;
    public byte baseline;
    public byte score_input;
    public double initial_weight;
    public double pl_learning_rate;
    public byte grow;
    public byte intra;
    public byte hold;
    public byte certify;
    public double certify_tolerance;
  }

  /** ppg_objective_config, filled by ppg_objective_config_init (as TrainConfig). */
  @Structure.FieldOrder({
    "struct_size", "metric", "eel_levels", "ndcg_k", "mix_weight", "rank_start"
  })
  class ObjectiveConfig extends Structure {
    public int struct_size;
    public int metric;
    public int eel_levels;
    public SizeT ndcg_k = new SizeT();
    public double mix_weight;
    public int rank_start;
  }

  /** ppg_train_report, prepared by ppg_train_report_init (as TrainConfig). */
  @Structure.FieldOrder({
    "struct_size", "epochs", "samples", "best_cost", "best_epoch", "certified", "bound_exact",
    "bound", "gap"
  })
  class TrainReport extends Structure {
    public int struct_size;
    public int epochs;
    public int samples;
    public double best_cost;
    public long best_epoch;
    public byte certified;
    public byte bound_exact;
    public double bound;
    public double gap;
  }

  /**
   * ppg_cost_fn. It must return normally: an exception JNA sees in a callback is swallowed
   * and the callback returns 0, so catch everything inside (as {@link Ppg} does).
   */
  interface CostFn extends Callback {
    double invoke(Pointer ranking, SizeT len, SizeT sessions, Pointer user);
  }

  String ppg_version();

  String ppg_status_str(int status);

  int ppg_train_config_init(TrainConfig out, SizeT size);

  int ppg_train_config_init_reference(TrainConfig out, SizeT size);

  long ppg_query_seed(long seed, long index);

  int ppg_objective_config_init(ObjectiveConfig out, SizeT size);

  int ppg_train_report_init(TrainReport out, SizeT size);

  int ppg_engine_new(
      int kind, SizeT items, SizeT sessions, SizeT batch, long seed, PointerByReference out);

  void ppg_engine_free(Pointer engine);

  int ppg_engine_set_query(Pointer engine, Item[] items, SizeT count, SizeT sessions);

  int ppg_engine_capacity(
      Pointer engine, SizeTByReference items, SizeTByReference sessions, SizeTByReference batch);

  int ppg_engine_ranking_len(Pointer engine, SizeTByReference len);

  int ppg_engine_forbid(Pointer engine, long a, long b);

  int ppg_engine_keep_order_within_groups(Pointer engine);

  int ppg_engine_hold_order_within_groups(Pointer engine);

  int ppg_engine_keep_order_between(Pointer engine, int[] labels, SizeT count);

  int ppg_engine_set_sampler(Pointer engine, int sampler);

  int ppg_engine_sample(Pointer engine, SizeT count, long[] outIds, SizeT outLen);

  int ppg_engine_update(
      Pointer engine,
      long[] rankings,
      SizeT len,
      double[] costs,
      SizeT count,
      TrainConfig config);

  int ppg_engine_best(Pointer engine, long[] outIds, SizeT len, double[] cost);

  int ppg_engine_train(
      Pointer engine, TrainConfig config, CostFn callback, Pointer user, TrainReport report);

  int ppg_engine_train_builtin(
      Pointer engine, TrainConfig config, ObjectiveConfig objective, TrainReport report);

  int ppg_engine_rerank(
      Pointer engine,
      Item[] items,
      SizeT count,
      SizeT sessions,
      ObjectiveConfig objective,
      TrainConfig config,
      long seed,
      long[] outIds,
      SizeT outLen,
      TrainReport report);

  int ppg_engine_evaluate(
      Pointer engine, ObjectiveConfig objective, long[] ranking, SizeT len, double[] value);
}
