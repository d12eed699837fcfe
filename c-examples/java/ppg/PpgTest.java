package ppg;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import ppg.Ppg.Best;
import ppg.Ppg.Engine;
import ppg.Ppg.Item;
import ppg.Ppg.PpgException;

/**
 * Re-ranks two queries for group fairness through the binding in use ({@link Ppg#binding})
 * and checks the results (every session a permutation, the fairness cost down from the input
 * ranking's, constrained pairs in input order), then some error cases. Exits 1 if any check
 * failed.
 *
 * <p>Run: {@code java -cp <classes>:/usr/share/java/jna.jar
 * -Djna.library.path=target/release ppg.PpgTest} (JNA); on Java 22 and later with the
 * classes of ../java22 ahead of them on the class path, FFM, and JNA not needed.
 */
public final class PpgTest {
  private static int failures = 0;

  private PpgTest() {}

  private static void check(boolean ok, String what) {
    if (!ok) {
      failures++;
      System.err.println("FAIL: " + what);
    }
  }

  /** A query ranked by utility, group 0 ahead of equally useful group 1 items. */
  record Query(String name, Item[] items, int sessions) {
    long[] input() {
      long[] r = new long[items.length * sessions];
      for (int k = 0; k < r.length; k++) {
        r[k] = items[k % items.length].id();
      }
      return r;
    }
  }

  static final Query[] QUERIES = {
    new Query(
        "jobs",
        new Item[] {
          new Item(101, 4, 0), new Item(102, 3, 0), new Item(103, 3, 1), new Item(104, 2, 0),
          new Item(105, 2, 1), new Item(106, 1, 0), new Item(107, 1, 1), new Item(108, 0, 0)
        },
        4),
    new Query(
        "news",
        new Item[] {
          new Item(7, 1, 0), new Item(3, 1, 0), new Item(9, 1, 0), new Item(1, 1, 1),
          new Item(4, 1, 1), new Item(2, 0, 0), new Item(8, 0, 1)
        },
        3),
  };

  static boolean isPermutation(Query q, long[] ranking) {
    int n = q.items().length;
    if (ranking.length != n * q.sessions()) {
      return false;
    }
    long[] want = Arrays.stream(q.items()).mapToLong(Item::id).sorted().toArray();
    for (int s = 0; s < q.sessions(); s++) {
      long[] got = Arrays.copyOfRange(ranking, s * n, (s + 1) * n);
      Arrays.sort(got);
      if (!Arrays.equals(got, want)) {
        return false;
      }
    }
    return true;
  }

  /** {@code a} before {@code b} in every session. */
  static boolean keptOrder(long[] ranking, int n, long a, long b) {
    for (int s = 0; s * n < ranking.length; s++) {
      int pa = -1;
      int pb = -1;
      for (int k = 0; k < n; k++) {
        if (ranking[s * n + k] == a) {
          pa = k;
        }
        if (ranking[s * n + k] == b) {
          pb = k;
        }
      }
      if (pa < 0 || pb < 0 || pa > pb) {
        return false;
      }
    }
    return true;
  }

  /** A caller's own cost: the groups' gap in exposure per unit of utility. */
  static Ppg.Objective exposureGap(Query q) {
    Map<Long, Integer> group = new HashMap<>();
    double[] merit = new double[2];
    for (Item it : q.items()) {
      group.put(it.id(), it.group());
      merit[it.group()] += it.utility();
    }
    int n = q.items().length;
    return (ranking, sessions) -> {
      double[] exposure = new double[2];
      for (int k = 0; k < ranking.length; k++) {
        exposure[group.get(ranking[k])] += 1 / (Math.log(k % n + 2) / Math.log(2));
      }
      return Math.abs(exposure[0] / merit[0] - exposure[1] / merit[1]) / sessions;
    };
  }

  static Engine newEngine(Query q, int batch, long seed) {
    return new Engine(Ppg.PPG_METHOD_PPG, q.items().length, q.sessions(), batch, seed);
  }

  static void rerankBuiltin(Query q, long seed) {
    String where = q.name() + " (built-in EEL): ";
    try (Engine engine = newEngine(q, 16, seed)) {
      engine.setQuery(q.items(), q.sessions());
      long a = q.items()[0].id();
      long b = q.items()[1].id();
      engine.forbid(a, b);
      Ppg.TrainConfig config = Ppg.defaultTrainConfig();
      config.score_input = true;
      Ppg.ObjectiveConfig eel = Ppg.defaultObjective(Ppg.PPG_METRIC_EEL);
      Ppg.TrainReport report = engine.trainBuiltin(config, eel);
      Best best = engine.best();
      double before = engine.evaluate(eel, q.input());
      double after = engine.evaluate(eel, best.ranking());
      System.out.printf(
          "%-6s EEL %.3g -> %.3g (%d samples)%n", q.name(), before, after, report.samples);
      check(isPermutation(q, best.ranking()), where + "every session is a permutation");
      check(after < before, where + "EEL went down");
      check(Math.abs(after - best.cost()) <= 1e-9 * Math.max(1, after), where + "best() cost");
      check(keptOrder(best.ranking(), q.items().length, a, b), where + "forbidden pair kept");
    }
  }

  static void rerankObjective(Query q, long seed) {
    String where = q.name() + " (Java objective): ";
    try (Engine engine = newEngine(q, 16, seed)) {
      engine.setQuery(q.items(), q.sessions());
      engine.keepOrderWithinGroups();
      Ppg.Objective gap = exposureGap(q);
      int[] calls = {0};
      Ppg.TrainConfig config = Ppg.defaultTrainConfig();
      config.score_input = true;
      config.baseline = true;
      Ppg.TrainReport report =
          engine.train(
              config,
              (ranking, sessions) -> {
                calls[0]++;
                return gap.cost(ranking, sessions);
              });
      Best best = engine.best();
      double before = gap.cost(q.input(), q.sessions());
      System.out.printf(
          "%-6s gap %.3g -> %.3g (%d samples)%n", q.name(), before, best.cost(), report.samples);
      check(calls[0] >= report.samples, where + "the objective scored every sample");
      check(isPermutation(q, best.ranking()), where + "every session is a permutation");
      check(best.cost() < before, where + "exposure gap went down");
      int n = q.items().length;
      for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
          Item x = q.items()[i];
          Item y = q.items()[j];
          if (x.group() == y.group()) {
            check(
                keptOrder(best.ranking(), n, x.id(), y.id()),
                where + "group order " + x.id() + " < " + y.id());
          }
        }
      }
    } catch (Exception e) {
      check(false, where + e);
    }
  }

  static void stepwise(Query q, long seed) {
    String where = q.name() + " (sample/update): ";
    int batch = 8;
    try (Engine engine = newEngine(q, batch, seed)) {
      engine.setQuery(q.items(), q.sessions());
      engine.setSampler(Ppg.PPG_SAMPLER_CORRECTED);
      Ppg.ObjectiveConfig dtr = Ppg.defaultObjective(Ppg.PPG_METRIC_DTR);
      Ppg.TrainConfig config = Ppg.defaultTrainConfig(); // its batch is ignored here
      int len = engine.rankingLen();
      double[] costs = new double[batch];
      for (int step = 0; step < 40; step++) {
        long[] rankings = engine.sample(batch);
        for (int k = 0; k < batch; k++) {
          long[] one = Arrays.copyOfRange(rankings, k * len, (k + 1) * len);
          costs[k] = Math.abs(engine.evaluate(dtr, one));
        }
        engine.update(rankings, costs, config);
      }
      Best best = engine.best();
      double before = Math.abs(engine.evaluate(dtr, q.input()));
      System.out.printf("%-6s |DTR| %.3g -> %.3g%n", q.name(), before, best.cost());
      check(isPermutation(q, best.ranking()), where + "every session is a permutation");
      check(best.cost() < before, where + "|DTR| went down");
    }
  }

  static int statusOf(Runnable r) {
    try {
      r.run();
      return Ppg.PPG_STATUS_OK;
    } catch (PpgException e) {
      return e.status();
    }
  }

  static void errors(Query q) {
    Engine engine = newEngine(q, 16, 3);
    engine.setQuery(q.items(), q.sessions());
    try {
      engine.forbid(q.items()[0].id(), 424242);
      check(false, "unknown id: forbid should throw");
    } catch (PpgException e) {
      check(e.status() == Ppg.PPG_STATUS_UNKNOWN_ITEM, "unknown id: " + e.getMessage());
      check(e.function().equals("ppg_engine_forbid"), "unknown id: function " + e.function());
    }
    Item[] dup = q.items().clone();
    dup[2] = new Item(dup[0].id(), 1, 1);
    check(
        statusOf(() -> engine.setQuery(dup, q.sessions())) == Ppg.PPG_STATUS_DUPLICATE_ITEM,
        "duplicate id");
    check(statusOf(() -> engine.best()) == Ppg.PPG_STATUS_NO_RESULT, "nothing scored yet");
    Ppg.ObjectiveConfig eel = Ppg.defaultObjective(Ppg.PPG_METRIC_EEL);
    check(
        statusOf(() -> engine.evaluate(eel, new long[] {1, 2}))
            == Ppg.PPG_STATUS_INVALID_ARGUMENT,
        "short ranking");

    // An exception from the objective comes back out of train() itself; the run is undone.
    int[] calls = {0};
    try {
      engine.train(
          Ppg.defaultTrainConfig(),
          (ranking, sessions) -> {
            if (++calls[0] == 5) {
              throw new IllegalStateException("objective gave up");
            }
            return 1.0;
          });
      check(false, "throwing objective: train should rethrow");
    } catch (IllegalStateException e) {
      check(e.getMessage().equals("objective gave up"), "throwing objective: " + e);
    }
    check(calls[0] == 5, "throwing objective: stopped at the throw, calls " + calls[0]);
    check(statusOf(() -> engine.best()) == Ppg.PPG_STATUS_NO_RESULT, "rolled back");

    engine.close();
    engine.close();
    check(
        statusOf(engine::keepOrderWithinGroups) == Ppg.PPG_STATUS_NULL_PARAMETER,
        "closed engine");
    check(
        statusOf(engine::holdOrderWithinGroups) == Ppg.PPG_STATUS_NULL_PARAMETER,
        "closed engine, hold");
    check(
        statusOf(() -> new Engine(Ppg.PPG_METHOD_PPG, 0, 1, 1, 0))
            == Ppg.PPG_STATUS_INVALID_ARGUMENT,
        "zero items");
  }

  /**
   * Counts beyond the engine are the library's PPG_STATUS_CAPACITY, a negative one an
   * IllegalArgumentException naming it, with nothing allocated from them ({@code (int)
   * (n * sessions)} was negative or truncated).
   */
  static void countsBeyondTheEngine(Query q) {
    try (Engine engine = newEngine(q, 16, 4)) {
      Ppg.Capacity capacity = engine.capacity();
      check(
          capacity.equals(new Ppg.Capacity(q.items().length, q.sessions(), 16)),
          "capacity: " + capacity);
      Ppg.ObjectiveConfig eel = Ppg.defaultObjective(Ppg.PPG_METRIC_EEL);
      Ppg.TrainConfig config = Ppg.defaultTrainConfig();
      for (long sessions : new long[] {1L << 40, 1L << 31, 1L << 25, q.sessions() + 1}) {
        check(
            statusOf(() -> engine.rerank(q.items(), sessions, eel, config, 1, null))
                == Ppg.PPG_STATUS_CAPACITY,
            "rerank over " + sessions + " sessions");
      }
      try {
        engine.rerank(q.items(), -1, eel, config, 1, null);
        check(false, "rerank over -1 sessions should throw");
      } catch (IllegalArgumentException e) {
        check(e.getMessage().contains("sessions"), "-1 sessions: " + e.getMessage());
      }
      engine.setQuery(q.items(), q.sessions());
      check(
          statusOf(() -> engine.sample(1 << 30)) == Ppg.PPG_STATUS_CAPACITY,
          "2^30 samples");
      check(statusOf(() -> engine.sample(17)) == Ppg.PPG_STATUS_CAPACITY, "17 samples");
      try {
        engine.sample(-1);
        check(false, "-1 samples should throw");
      } catch (IllegalArgumentException e) {
        check(e.getMessage().contains("count"), "-1 samples: " + e.getMessage());
      }
      check(
          engine.sample(16).length == 16 * q.items().length * q.sessions(), "the whole batch");
      check(
          engine.rerank(q.items(), q.sessions(), eel, config, 1, null).length
              == q.items().length * q.sessions(),
          "rerank within the engine");
    }
  }

  public static void main(String[] args) {
    System.out.println("libppg " + Ppg.version() + " through " + Ppg.binding());
    try {
      long seed = 2022;
      for (Query q : QUERIES) {
        rerankBuiltin(q, seed++);
        rerankObjective(q, seed++);
        stepwise(q, seed++);
      }
      errors(QUERIES[0]);
      countsBeyondTheEngine(QUERIES[0]);
    } catch (RuntimeException e) {
      e.printStackTrace();
      check(false, "unexpected exception: " + e);
    }
    if (failures != 0) {
      System.err.println(failures + " check(s) failed");
      System.exit(1);
    }
    System.out.println("all checks passed");
  }
}
