package ppg;

/**
 * The Java API of libppg: an {@link Engine} that is {@link AutoCloseable}, a {@link
 * PpgException} with the C status for every failed call, {@link Objective} lambdas as
 * training objectives, and the C structs as plain classes ({@link TrainConfig}, {@link
 * ObjectiveConfig}, {@link TrainReport}). The same API over either binding: the Foreign
 * Function and Memory API on Java 22 and later, JNA on Java 16 to 21 ({@link #binding()}
 * says which; {@code -Dppg.binding=jna} picks JNA on 22 and later too).
 *
 * <p>As in the C API, a call that throws changed nothing, so catching and carrying on is
 * safe. An engine is not thread-safe: use it from one thread at a time.
 */
public final class Ppg implements PpgConstants {
  private static final Binding LIB = Bindings.BINDING;

  private Ppg() {}

  /** The library version, e.g. "0.2.0". */
  public static String version() {
    return LIB.version();
  }

  /** The binding in use: "ffm" (java.lang.foreign, Java 22 and later) or "jna". */
  public static String binding() {
    return LIB.name();
  }

  /** A failed C call: {@link #status()} is its ppg_status, the message ppg_status_str's. */
  public static final class PpgException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String function;

    public PpgException(int status, String function) {
      super(function + ": " + LIB.statusStr(status) + " (status " + status + ")");
      this.status = status;
      this.function = function;
    }

    /** One of the {@code PPG_STATUS_*} values. */
    public int status() {
      return status;
    }

    /** The C function that failed. */
    public String function() {
      return function;
    }
  }

  static void check(int status, String function) {
    if (status != PPG_STATUS_OK) {
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

  /** ppg_train_config (include/ppg.h documents each field). */
  public static final class TrainConfig {
    public double learning_rate;
    public int epochs;
    public long batch;
    public int patience;
    public double clamp_min;
    public double clamp_max;
    public int sampler;
    public int gradient;
    public boolean baseline;
    public boolean score_input;
    public double initial_weight;
    public double pl_learning_rate;
    public boolean grow;
    public boolean intra;
    public boolean hold;
    public boolean certify;
    public double certify_tolerance;
  }

  /** ppg_objective_config's first fields (the rest keep the library's defaults). */
  public static final class ObjectiveConfig {
    public int metric;
    public int eel_levels;
    public long ndcg_k;
    public double mix_weight;
    public int rank_start;
  }

  /** ppg_train_report's first fields: what a training call did. */
  public static final class TrainReport {
    public int epochs;
    public int samples;
    public double best_cost;
    public long best_epoch;
    public boolean certified;
    public boolean bound_exact;
    public double bound;
    public double gap;
  }

  /**
   * The recommended recipe (ppg_train_config_init: what ppg rerank and Python run); change
   * fields as needed.
   */
  public static TrainConfig defaultTrainConfig() {
    TrainConfig c = new TrainConfig();
    check(LIB.trainConfigInit(c, false), "ppg_train_config_init");
    return c;
  }

  /** The paper's reference run (ppg_train_config_init_reference). */
  public static TrainConfig referenceTrainConfig() {
    TrainConfig c = new TrainConfig();
    check(LIB.trainConfigInit(c, true), "ppg_train_config_init_reference");
    return c;
  }

  /** The seed ppg rerank --seed seed gives the query at index (0-based, in input order). */
  public static long querySeed(long seed, long index) {
    return LIB.querySeed(seed, index);
  }

  /** The default objective with its metric set to {@code metric} (a PPG_METRIC_* value). */
  public static ObjectiveConfig defaultObjective(int metric) {
    ObjectiveConfig c = new ObjectiveConfig();
    check(LIB.objectiveConfigInit(c), "ppg_objective_config_init");
    c.metric = metric;
    return c;
  }

  /** An engine on the C heap, freed by {@link #close()}. */
  public static final class Engine implements AutoCloseable {
    private long engine;

    /**
     * ppg_engine_new: room for queries of up to {@code items} items over {@code sessions}
     * sessions and {@code batch} samples per step.
     */
    public Engine(int method, long items, long sessions, long batch, long seed) {
      long[] out = new long[1];
      check(LIB.engineNew(method, items, sessions, batch, seed, out), "ppg_engine_new");
      engine = out[0];
    }

    /** Frees the engine; later calls throw PpgException with PPG_STATUS_NULL_PARAMETER. */
    @Override
    public void close() {
      LIB.engineFree(engine);
      engine = 0;
    }

    /** Starts a query: {@code items} in ranked order over {@code sessions} sessions. */
    public void setQuery(Item[] items, long sessions) {
      check(LIB.setQuery(engine, items, sessions), "ppg_engine_set_query");
    }

    /** ppg_engine_capacity: the counts the engine was made with. */
    public Capacity capacity() {
      long[] out = new long[3];
      check(LIB.capacity(engine, out), "ppg_engine_capacity");
      return new Capacity(out[0], out[1], out[2]);
    }

    /** items * sessions of the current query. */
    public int rankingLen() {
      long[] len = new long[1];
      check(LIB.rankingLen(engine, len), "ppg_engine_ranking_len");
      return Math.toIntExact(len[0]);
    }

    /** Items {@code a} and {@code b} (ids) keep their input order in every session. */
    public void forbid(long a, long b) {
      check(LIB.forbid(engine, a, b), "ppg_engine_forbid");
    }

    public void keepOrderWithinGroups() {
      check(LIB.keepOrderWithinGroups(engine), "ppg_engine_keep_order_within_groups");
    }

    /**
     * Items of the same group keep their input order for a first training run, then are free
     * for a second run from the best ranking found.
     */
    public void holdOrderWithinGroups() {
      check(LIB.holdOrderWithinGroups(engine), "ppg_engine_hold_order_within_groups");
    }

    /** {@code labels[k]} labels the k-th item of the query. */
    public void keepOrderBetween(int[] labels) {
      check(LIB.keepOrderBetween(engine, labels), "ppg_engine_keep_order_between");
    }

    /** A PPG_SAMPLER_* value for {@link #sample}. */
    public void setSampler(int sampler) {
      check(LIB.setSampler(engine, sampler), "ppg_engine_set_sampler");
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
        check(LIB.sample(engine, count, new long[0]), "ppg_engine_sample");
      }
      long[] ids = new long[Math.multiplyExact(count, len)];
      check(LIB.sample(engine, count, ids), "ppg_engine_sample");
      return ids;
    }

    /** One training step on the pending batch ({@code config.batch} is ignored). */
    public void update(long[] rankings, double[] costs, TrainConfig config) {
      check(LIB.update(engine, rankings, costs, config), "ppg_engine_update");
    }

    /** The lowest-cost ranking scored since the query was set. */
    public Best best() {
      long[] ids = new long[rankingLen()];
      double[] cost = new double[1];
      check(LIB.best(engine, ids, cost), "ppg_engine_best");
      return new Best(ids, cost[0]);
    }

    /**
     * Trains against {@code objective}. If it throws, training stops, the engine is rolled
     * back to its state before the call, and the exception is rethrown here (checked ones
     * wrapped in a RuntimeException).
     */
    public TrainReport train(TrainConfig config, Objective objective) {
      Throwable[] thrown = new Throwable[1];
      TrainReport report = new TrainReport();
      int status = LIB.train(engine, config, objective, report, thrown);
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
    public TrainReport trainBuiltin(TrainConfig config, ObjectiveConfig objective) {
      TrainReport report = new TrainReport();
      check(LIB.trainBuiltin(engine, config, objective, report), "ppg_engine_train_builtin");
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
        ObjectiveConfig objective,
        TrainConfig config,
        long seed,
        TrainReport report) {
      if (sessions < 0) {
        throw new IllegalArgumentException("sessions must not be negative, got " + sessions);
      }
      TrainReport r = report != null ? report : new TrainReport();
      Capacity capacity = capacity();
      if (items.length > capacity.items() || sessions > capacity.sessions()) {
        // The library refuses counts beyond the engine (PPG_STATUS_CAPACITY) before it
        // looks at the buffer: nothing is allocated from them.
        check(
            LIB.rerank(engine, items, sessions, objective, config, seed, new long[0], r),
            "ppg_engine_rerank");
      }
      // At most the engine's own layout.
      long[] out = new long[Math.toIntExact(Math.multiplyExact(items.length, sessions))];
      check(
          LIB.rerank(engine, items, sessions, objective, config, seed, out, r),
          "ppg_engine_rerank");
      return out;
    }

    /** The built-in objective's cost of {@code ranking} ({@link #rankingLen} ids). */
    public double evaluate(ObjectiveConfig objective, long[] ranking) {
      double[] value = new double[1];
      check(LIB.evaluate(engine, objective, ranking, value), "ppg_engine_evaluate");
      return value[0];
    }
  }
}
