package ppg;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import ppg.PpgLibrary.SizeT;
import ppg.PpgLibrary.SizeTByReference;

/**
 * {@link Binding} through JNA ({@link PpgLibrary}): Java 16 and later, JNA on the class
 * path. Structs and arrays are copied to native memory by JNA on each call.
 */
final class JnaBinding implements Binding {
  private static final PpgLibrary LIB = PpgLibrary.INSTANCE;

  @Override
  public String name() {
    return "jna";
  }

  @Override
  public String version() {
    return LIB.ppg_version();
  }

  @Override
  public String statusStr(int status) {
    return LIB.ppg_status_str(status);
  }

  private static Pointer engine(long address) {
    return address == 0 ? null : new Pointer(address);
  }

  /** At least one element: an empty output is a valid buffer of length 0, not NULL. */
  private static long[] buffer(long[] out) {
    return out.length == 0 ? new long[1] : out;
  }

  private static PpgLibrary.TrainConfig to(Ppg.TrainConfig j) {
    PpgLibrary.TrainConfig c = new PpgLibrary.TrainConfig();
    Ppg.check(LIB.ppg_train_config_init(c, new SizeT(c.size())), "ppg_train_config_init");
    c.learning_rate = j.learning_rate;
    c.epochs = j.epochs;
    c.batch = new SizeT(j.batch);
    c.patience = j.patience;
    c.clamp_min = j.clamp_min;
    c.clamp_max = j.clamp_max;
    c.sampler = j.sampler;
    c.gradient = j.gradient;
    c.baseline = (byte) (j.baseline ? 1 : 0);
    c.score_input = (byte) (j.score_input ? 1 : 0);
    c.initial_weight = j.initial_weight;
    c.pl_learning_rate = j.pl_learning_rate;
    c.grow = (byte) (j.grow ? 1 : 0);
    c.intra = (byte) (j.intra ? 1 : 0);
    c.hold = (byte) (j.hold ? 1 : 0);
    c.certify = (byte) (j.certify ? 1 : 0);
    c.certify_tolerance = j.certify_tolerance;
    return c;
  }

  private static PpgLibrary.ObjectiveConfig to(Ppg.ObjectiveConfig j) {
    PpgLibrary.ObjectiveConfig c = new PpgLibrary.ObjectiveConfig();
    Ppg.check(LIB.ppg_objective_config_init(c, new SizeT(c.size())), "ppg_objective_config_init");
    c.metric = j.metric;
    c.eel_levels = j.eel_levels;
    c.ndcg_k = new SizeT(j.ndcg_k);
    c.mix_weight = j.mix_weight;
    c.rank_start = j.rank_start;
    return c;
  }

  private static PpgLibrary.TrainReport newReport() {
    PpgLibrary.TrainReport r = new PpgLibrary.TrainReport();
    Ppg.check(LIB.ppg_train_report_init(r, new SizeT(r.size())), "ppg_train_report_init");
    return r;
  }

  /** Copies a report back; the library writes it whether the call failed or not. */
  private static int from(PpgLibrary.TrainReport c, Ppg.TrainReport j, int status) {
    j.epochs = c.epochs;
    j.samples = c.samples;
    j.best_cost = c.best_cost;
    j.best_epoch = c.best_epoch;
    j.certified = c.certified != 0;
    j.bound_exact = c.bound_exact != 0;
    j.bound = c.bound;
    j.gap = c.gap;
    return status;
  }

  private static PpgLibrary.Item[] items(Ppg.Item[] items) {
    // One contiguous C array (toArray), written to native memory by JNA on the call.
    PpgLibrary.Item[] cs =
        items.length == 0 ? null : (PpgLibrary.Item[]) new PpgLibrary.Item().toArray(items.length);
    for (int k = 0; k < items.length; k++) {
      cs[k].id = items[k].id();
      cs[k].utility = items[k].utility();
      cs[k].group = items[k].group();
    }
    return cs;
  }

  @Override
  public int trainConfigInit(Ppg.TrainConfig out, boolean reference) {
    PpgLibrary.TrainConfig c = new PpgLibrary.TrainConfig();
    int status =
        reference
            ? LIB.ppg_train_config_init_reference(c, new SizeT(c.size()))
            : LIB.ppg_train_config_init(c, new SizeT(c.size()));
    out.learning_rate = c.learning_rate;
    out.epochs = c.epochs;
    out.batch = c.batch.longValue();
    out.patience = c.patience;
    out.clamp_min = c.clamp_min;
    out.clamp_max = c.clamp_max;
    out.sampler = c.sampler;
    out.gradient = c.gradient;
    out.baseline = c.baseline != 0;
    out.score_input = c.score_input != 0;
    out.initial_weight = c.initial_weight;
    out.pl_learning_rate = c.pl_learning_rate;
    out.grow = c.grow != 0;
    out.intra = c.intra != 0;
    out.hold = c.hold != 0;
    out.certify = c.certify != 0;
    out.certify_tolerance = c.certify_tolerance;
    return status;
  }

  @Override
  public int objectiveConfigInit(Ppg.ObjectiveConfig out) {
    PpgLibrary.ObjectiveConfig c = new PpgLibrary.ObjectiveConfig();
    int status = LIB.ppg_objective_config_init(c, new SizeT(c.size()));
    out.metric = c.metric;
    out.eel_levels = c.eel_levels;
    out.ndcg_k = c.ndcg_k.longValue();
    out.mix_weight = c.mix_weight;
    out.rank_start = c.rank_start;
    return status;
  }

  @Override
  public long querySeed(long seed, long index) {
    return LIB.ppg_query_seed(seed, index);
  }

  @Override
  public int engineNew(int method, long items, long sessions, long batch, long seed, long[] out) {
    PointerByReference engine = new PointerByReference();
    int status =
        LIB.ppg_engine_new(
            method, new SizeT(items), new SizeT(sessions), new SizeT(batch), seed, engine);
    out[0] = Pointer.nativeValue(engine.getValue());
    return status;
  }

  @Override
  public void engineFree(long engine) {
    LIB.ppg_engine_free(engine(engine));
  }

  @Override
  public int setQuery(long engine, Ppg.Item[] items, long sessions) {
    return LIB.ppg_engine_set_query(
        engine(engine), items(items), new SizeT(items.length), new SizeT(sessions));
  }

  @Override
  public int capacity(long engine, long[] out) {
    SizeTByReference items = new SizeTByReference();
    SizeTByReference sessions = new SizeTByReference();
    SizeTByReference batch = new SizeTByReference();
    int status = LIB.ppg_engine_capacity(engine(engine), items, sessions, batch);
    out[0] = items.getValue();
    out[1] = sessions.getValue();
    out[2] = batch.getValue();
    return status;
  }

  @Override
  public int rankingLen(long engine, long[] out) {
    SizeTByReference len = new SizeTByReference();
    int status = LIB.ppg_engine_ranking_len(engine(engine), len);
    out[0] = len.getValue();
    return status;
  }

  @Override
  public int forbid(long engine, long a, long b) {
    return LIB.ppg_engine_forbid(engine(engine), a, b);
  }

  @Override
  public int keepOrderWithinGroups(long engine) {
    return LIB.ppg_engine_keep_order_within_groups(engine(engine));
  }

  @Override
  public int holdOrderWithinGroups(long engine) {
    return LIB.ppg_engine_hold_order_within_groups(engine(engine));
  }

  @Override
  public int keepOrderBetween(long engine, int[] labels) {
    return LIB.ppg_engine_keep_order_between(engine(engine), labels, new SizeT(labels.length));
  }

  @Override
  public int setSampler(long engine, int sampler) {
    return LIB.ppg_engine_set_sampler(engine(engine), sampler);
  }

  @Override
  public int sample(long engine, long count, long[] out) {
    return LIB.ppg_engine_sample(
        engine(engine), new SizeT(count), buffer(out), new SizeT(out.length));
  }

  @Override
  public int update(long engine, long[] rankings, double[] costs, Ppg.TrainConfig config) {
    return LIB.ppg_engine_update(
        engine(engine),
        buffer(rankings),
        new SizeT(rankings.length),
        costs.length == 0 ? new double[1] : costs,
        new SizeT(costs.length),
        to(config));
  }

  @Override
  public int best(long engine, long[] out, double[] cost) {
    return LIB.ppg_engine_best(engine(engine), buffer(out), new SizeT(out.length), cost);
  }

  @Override
  public int train(
      long engine,
      Ppg.TrainConfig config,
      Ppg.Objective objective,
      Ppg.TrainReport report,
      Throwable[] thrown) {
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
    PpgLibrary.TrainReport r = newReport();
    return from(r, report, LIB.ppg_engine_train(engine(engine), to(config), callback, null, r));
  }

  @Override
  public int trainBuiltin(
      long engine, Ppg.TrainConfig config, Ppg.ObjectiveConfig objective, Ppg.TrainReport report) {
    PpgLibrary.TrainReport r = newReport();
    return from(
        r, report, LIB.ppg_engine_train_builtin(engine(engine), to(config), to(objective), r));
  }

  @Override
  public int rerank(
      long engine,
      Ppg.Item[] items,
      long sessions,
      Ppg.ObjectiveConfig objective,
      Ppg.TrainConfig config,
      long seed,
      long[] out,
      Ppg.TrainReport report) {
    PpgLibrary.TrainReport r = newReport();
    int status =
        LIB.ppg_engine_rerank(
            engine(engine),
            items(items),
            new SizeT(items.length),
            new SizeT(sessions),
            to(objective),
            to(config),
            seed,
            buffer(out),
            new SizeT(out.length),
            r);
    return from(r, report, status);
  }

  @Override
  public int evaluate(long engine, Ppg.ObjectiveConfig objective, long[] ranking, double[] value) {
    return LIB.ppg_engine_evaluate(
        engine(engine), to(objective), buffer(ranking), new SizeT(ranking.length), value);
  }
}
