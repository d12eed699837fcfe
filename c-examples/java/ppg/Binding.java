package ppg;

/**
 * The C API as {@link Ppg} calls it, one method a C function, in plain Java types, so that
 * {@link Ppg} is the same over either binding: {@link JnaBinding} (Java 16 and later) and,
 * on Java 22 and later, FfmBinding (java.lang.foreign; the jar's META-INF/versions/22).
 * {@link Bindings#BINDING} is the one in use.
 *
 * <p>An engine is its C address as a {@code long} (0 once freed, which the library refuses
 * with PPG_STATUS_NULL_PARAMETER). Every {@code int} returned is a ppg_status; an output
 * array of length 0 is passed as a buffer of length 0 (the library checks counts before it
 * looks at buffers).
 */
interface Binding {
  /** The binding's name as {@code ppg.binding} takes it: "jna" or "ffm". */
  String name();

  String version();

  String statusStr(int status);

  /** ppg_train_config_init (or _init_reference) into {@code out}. */
  int trainConfigInit(Ppg.TrainConfig out, boolean reference);

  int objectiveConfigInit(Ppg.ObjectiveConfig out);

  long querySeed(long seed, long index);

  /** ppg_engine_new; the engine's address in {@code out[0]}. */
  int engineNew(int method, long items, long sessions, long batch, long seed, long[] out);

  void engineFree(long engine);

  int setQuery(long engine, Ppg.Item[] items, long sessions);

  /** ppg_engine_capacity into {@code out[0..3]}: items, sessions, batch. */
  int capacity(long engine, long[] out);

  int rankingLen(long engine, long[] out);

  int forbid(long engine, long a, long b);

  int keepOrderWithinGroups(long engine);

  int holdOrderWithinGroups(long engine);

  int keepOrderBetween(long engine, int[] labels);

  int setSampler(long engine, int sampler);

  int sample(long engine, long count, long[] out);

  int update(long engine, long[] rankings, double[] costs, Ppg.TrainConfig config);

  int best(long engine, long[] out, double[] cost);

  /**
   * ppg_engine_train with {@code objective} as its ppg_cost_fn. The callback must not let an
   * exception into C: the first one is kept in {@code thrown[0]} and the callback returns
   * NaN, which stops training and restores the engine.
   */
  int train(
      long engine,
      Ppg.TrainConfig config,
      Ppg.Objective objective,
      Ppg.TrainReport report,
      Throwable[] thrown);

  int trainBuiltin(
      long engine, Ppg.TrainConfig config, Ppg.ObjectiveConfig objective, Ppg.TrainReport report);

  int rerank(
      long engine,
      Ppg.Item[] items,
      long sessions,
      Ppg.ObjectiveConfig objective,
      Ppg.TrainConfig config,
      long seed,
      long[] out,
      Ppg.TrainReport report);

  int evaluate(long engine, Ppg.ObjectiveConfig objective, long[] ranking, double[] value);
}
