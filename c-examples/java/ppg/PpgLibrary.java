package ppg;

import com.sun.jna.Callback;
import com.sun.jna.IntegerType;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.ByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The C API of include/ppg.h, mapped one to one with JNA (the header is the manual). Every
 * function returns a ppg_status as an {@code int}; {@link Ppg} turns them into exceptions
 * over {@link JnaBinding}. Which {@code libppg.so} is loaded is {@link Loader}'s rule, the
 * FFM binding's too.
 *
 * <p>Public for programs that use the C API through JNA directly; {@link Ppg} is the API
 * that works on either binding (this interface needs JNA on the class path).
 */
public interface PpgLibrary extends Library, PpgConstants {
  /** The library's SONAME, the system copy this version of the classes can use. */
  String SONAME = Loader.SONAME;

  PpgLibrary INSTANCE =
      Loader.load(
          new Loader.Opener<PpgLibrary>() {
            @Override
            public PpgLibrary onLibraryPath(String path) {
              return Native.load("ppg", PpgLibrary.class);
            }

            @Override
            public PpgLibrary open(String pathOrName) {
              return Native.load(pathOrName, PpgLibrary.class);
            }
          });

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
