package ppg;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import ppg.PpgLibrary.SizeT;

/**
 * A small Java API over {@link PpgLibrary}: an {@link Engine} that is {@link AutoCloseable},
 * a {@link PpgException} with the C status for every failed call, and {@link Objective}
 * lambdas as training objectives.
 *
 * <p>As in the C API, a call that throws changed nothing, so catching and carrying on is
 * safe. An engine is not thread-safe: use it from one thread at a time.
 */
public final class Ppg {
  private static final PpgLibrary LIB = PpgLibrary.INSTANCE;

  private Ppg() {}

  /** The library version, e.g. "0.2.0". */
  public static String version() {
    return LIB.ppg_version();
  }

  /** A failed C call: {@link #status()} is its ppg_status, the message ppg_status_str's. */
  public static final class PpgException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String function;

    public PpgException(int status, String function) {
      super(function + ": " + LIB.ppg_status_str(status) + " (status " + status + ")");
      this.status = status;
      this.function = function;
    }

    /** One of the {@code PpgLibrary.PPG_STATUS_*} values. */
    public int status() {
      return status;
    }

    /** The C function that failed. */
    public String function() {
      return function;
    }
  }

  static void check(int status, String function) {
    if (status != PpgLibrary.PPG_STATUS_OK) {
      throw new PpgException(status, function);
    }
  }

  /** One item of a query; a query lists them in ranked order (the input ranking). */
  public record Item(long id, double utility, int group) {}

  /** The most an engine holds: items per session, sessions, samples per step. */
  public record Capacity(long items, long sessions, long batch) {}

  /** The lowest-cost ranking so far ({@code items * sessions} ids) and its cost. */
  public record Best(long[] ranking, double cost) {}

  /** A caller's cost of one multi-session ranking; lower is better. */
  @FunctionalInterface
  public interface Objective {
    double cost(long[] ranking, int sessions) throws Exception;
  }

  /**
   * The recommended recipe (ppg_train_config_default: what ppg rerank and Python run); change
   * fields as needed.
   */
  public static PpgLibrary.TrainConfig defaultTrainConfig() {
    PpgLibrary.TrainConfig c = new PpgLibrary.TrainConfig();
    check(LIB.ppg_train_config_init(c, new SizeT(c.size())), "ppg_train_config_init");
    return c;
  }

  /** The paper's reference run (ppg_train_config_reference). */
  public static PpgLibrary.TrainConfig referenceTrainConfig() {
    PpgLibrary.TrainConfig c = new PpgLibrary.TrainConfig();
    check(
        LIB.ppg_train_config_init_reference(c, new SizeT(c.size())),
        "ppg_train_config_init_reference");
    return c;
  }

  /** The seed ppg rerank --seed seed gives the query at index (0-based, in input order). */
  public static long querySeed(long seed, long index) {
    return LIB.ppg_query_seed(seed, index);
  }

  /** The default objective with its metric set to {@code metric} (a PPG_METRIC_* value). */
  public static PpgLibrary.ObjectiveConfig defaultObjective(int metric) {
    PpgLibrary.ObjectiveConfig c = new PpgLibrary.ObjectiveConfig();
    check(LIB.ppg_objective_config_init(c, new SizeT(c.size())), "ppg_objective_config_init");
    c.metric = metric;
    return c;
  }

  /** A report prepared for a training call (its struct_size set). */
  private static PpgLibrary.TrainReport newReport() {
    PpgLibrary.TrainReport r = new PpgLibrary.TrainReport();
    check(LIB.ppg_train_report_init(r, new SizeT(r.size())), "ppg_train_report_init");
    return r;
  }

  /** An engine on the C heap, freed by {@link #close()}. */
  public static final class Engine implements AutoCloseable {
    private Pointer engine;

    /**
     * ppg_engine_new: room for queries of up to {@code items} items over {@code sessions}
     * sessions and {@code batch} samples per step.
     */
    public Engine(int method, long items, long sessions, long batch, long seed) {
      PointerByReference out = new PointerByReference();
      check(
          LIB.ppg_engine_new(
              method, new SizeT(items), new SizeT(sessions), new SizeT(batch), seed, out),
          "ppg_engine_new");
      engine = out.getValue();
    }

    /** Frees the engine; later calls throw PpgException with PPG_STATUS_NULL_PARAMETER. */
    @Override
    public void close() {
      LIB.ppg_engine_free(engine);
      engine = null;
    }

    /** Starts a query: {@code items} in ranked order over {@code sessions} sessions. */
    public void setQuery(Item[] items, long sessions) {
      // One contiguous C array (toArray), written to native memory by JNA on the call.
      PpgLibrary.Item[] cs =
          items.length == 0
              ? null
              : (PpgLibrary.Item[]) new PpgLibrary.Item().toArray(items.length);
      for (int k = 0; k < items.length; k++) {
        cs[k].id = items[k].id();
        cs[k].utility = items[k].utility();
        cs[k].group = items[k].group();
      }
      check(
          LIB.ppg_engine_set_query(engine, cs, new SizeT(items.length), new SizeT(sessions)),
          "ppg_engine_set_query");
    }

    /** ppg_engine_capacity: the counts the engine was made with. */
    public Capacity capacity() {
      PpgLibrary.SizeTByReference items = new PpgLibrary.SizeTByReference();
      PpgLibrary.SizeTByReference sessions = new PpgLibrary.SizeTByReference();
      PpgLibrary.SizeTByReference batch = new PpgLibrary.SizeTByReference();
      check(LIB.ppg_engine_capacity(engine, items, sessions, batch), "ppg_engine_capacity");
      return new Capacity(items.getValue(), sessions.getValue(), batch.getValue());
    }

    /** items * sessions of the current query. */
    public int rankingLen() {
      PpgLibrary.SizeTByReference len = new PpgLibrary.SizeTByReference();
      check(LIB.ppg_engine_ranking_len(engine, len), "ppg_engine_ranking_len");
      return Math.toIntExact(len.getValue());
    }

    /** Items {@code a} and {@code b} (ids) keep their input order in every session. */
    public void forbid(long a, long b) {
      check(LIB.ppg_engine_forbid(engine, a, b), "ppg_engine_forbid");
    }

    public void keepOrderWithinGroups() {
      check(
          LIB.ppg_engine_keep_order_within_groups(engine), "ppg_engine_keep_order_within_groups");
    }

    /**
     * Items of the same group keep their input order for a first training run, then are free
     * for a second run from the best ranking found.
     */
    public void holdOrderWithinGroups() {
      check(
          LIB.ppg_engine_hold_order_within_groups(engine), "ppg_engine_hold_order_within_groups");
    }

    /** {@code labels[k]} labels the k-th item of the query. */
    public void keepOrderBetween(int[] labels) {
      check(
          LIB.ppg_engine_keep_order_between(engine, labels, new SizeT(labels.length)),
          "ppg_engine_keep_order_between");
    }

    /** A PPG_SAMPLER_* value for {@link #sample}. */
    public void setSampler(int sampler) {
      check(LIB.ppg_engine_set_sampler(engine, sampler), "ppg_engine_set_sampler");
    }

    /**
     * Draws {@code count} rankings, kept pending for {@link #update}. A negative count is an
     * IllegalArgumentException; one above the engine's batch the library's
     * PPG_STATUS_CAPACITY, with nothing allocated for it.
     */
    public long[] sample(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("count must not be negative, got " + count);
      }
      int len = rankingLen();
      if (count > capacity().batch()) {
        // The library refuses the count (PPG_STATUS_CAPACITY) before it looks at the
        // buffer: nothing is allocated for it.
        check(
            LIB.ppg_engine_sample(engine, new SizeT(count), new long[1], new SizeT(0)),
            "ppg_engine_sample");
      }
      long[] ids = new long[Math.multiplyExact(count, len)];
      check(
          LIB.ppg_engine_sample(engine, new SizeT(count), ids, new SizeT(ids.length)),
          "ppg_engine_sample");
      return ids;
    }

    /** One training step on the pending batch ({@code config.batch} is ignored). */
    public void update(long[] rankings, double[] costs, PpgLibrary.TrainConfig config) {
      check(
          LIB.ppg_engine_update(
              engine,
              rankings,
              new SizeT(rankings.length),
              costs,
              new SizeT(costs.length),
              config),
          "ppg_engine_update");
    }

    /** The lowest-cost ranking scored since the query was set. */
    public Best best() {
      long[] ids = new long[rankingLen()];
      double[] cost = new double[1];
      check(LIB.ppg_engine_best(engine, ids, new SizeT(ids.length), cost), "ppg_engine_best");
      return new Best(ids, cost[0]);
    }

    /**
     * Trains against {@code objective}. If it throws, training stops, the engine is rolled
     * back to its state before the call, and the exception is rethrown here (checked ones
     * wrapped in a RuntimeException).
     */
    public PpgLibrary.TrainReport train(PpgLibrary.TrainConfig config, Objective objective) {
      Throwable[] thrown = new Throwable[1];
      // JNA would swallow an exception and return 0.0 to C; NaN instead makes the library
      // stop and restore the engine.
      PpgLibrary.CostFn callback =
          (ranking, len, sessions, user) -> {
            try {
              return objective.cost(ranking.getLongArray(0, len.intValue()), sessions.intValue());
            } catch (Throwable t) {
              thrown[0] = t;
              return Double.NaN;
            }
          };
      PpgLibrary.TrainReport report = newReport();
      int status = LIB.ppg_engine_train(engine, config, callback, null, report);
      if (thrown[0] instanceof RuntimeException e) {
        throw e;
      } else if (thrown[0] instanceof Error e) {
        throw e;
      } else if (thrown[0] != null) {
        throw new RuntimeException(thrown[0]);
      }
      check(status, "ppg_engine_train");
      return report;
    }

    /** Trains against a built-in objective over the query's utilities and groups. */
    public PpgLibrary.TrainReport trainBuiltin(
        PpgLibrary.TrainConfig config, PpgLibrary.ObjectiveConfig objective) {
      PpgLibrary.TrainReport report = newReport();
      check(
          LIB.ppg_engine_train_builtin(engine, config, objective, report),
          "ppg_engine_train_builtin");
      return report;
    }

    /**
     * ppg_engine_rerank: re-ranks {@code items} (in their input ranking) for {@code sessions}
     * sessions in one call and returns the rankings of their ids, session after session;
     * {@code report} (may be null) receives what the run did, its certificate included.
     */
    public long[] rerank(
        Item[] items,
        long sessions,
        PpgLibrary.ObjectiveConfig objective,
        PpgLibrary.TrainConfig config,
        long seed,
        PpgLibrary.TrainReport report) {
      PpgLibrary.Item[] cs =
          items.length == 0
              ? null
              : (PpgLibrary.Item[]) new PpgLibrary.Item().toArray(items.length);
      for (int k = 0; k < items.length; k++) {
        cs[k].id = items[k].id();
        cs[k].utility = items[k].utility();
        cs[k].group = items[k].group();
      }
      if (sessions < 0) {
        throw new IllegalArgumentException("sessions must not be negative, got " + sessions);
      }
      Capacity capacity = capacity();
      if (items.length > capacity.items() || sessions > capacity.sessions()) {
        // The library refuses counts beyond the engine (PPG_STATUS_CAPACITY) before it
        // looks at the buffer: nothing is allocated from them.
        check(
            LIB.ppg_engine_rerank(
                engine,
                cs,
                new SizeT(items.length),
                new SizeT(sessions),
                objective,
                config,
                seed,
                new long[1],
                new SizeT(0),
                report != null ? report : newReport()),
            "ppg_engine_rerank");
      }
      // At most the engine's own layout.
      long[] out = new long[Math.toIntExact(Math.multiplyExact(items.length, sessions))];
      PpgLibrary.TrainReport r = report != null ? report : newReport();
      check(
          LIB.ppg_engine_rerank(
              engine,
              cs,
              new SizeT(items.length),
              new SizeT(sessions),
              objective,
              config,
              seed,
              out,
              new SizeT(out.length),
              r),
          "ppg_engine_rerank");
      return out;
    }

    /** A report prepared for {@link #rerank}. */
    public static PpgLibrary.TrainReport report() {
      return newReport();
    }

    /** The built-in objective's cost of {@code ranking} ({@link #rankingLen} ids). */
    public double evaluate(PpgLibrary.ObjectiveConfig objective, long[] ranking) {
      double[] value = new double[1];
      check(
          LIB.ppg_engine_evaluate(engine, objective, ranking, new SizeT(ranking.length), value),
          "ppg_engine_evaluate");
      return value[0];
    }
  }
}
