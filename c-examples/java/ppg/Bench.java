package ppg;

import java.util.Arrays;

/**
 * Times the binding in use ({@code -Dppg.binding=jna|ffm} on Java 22+): a call that does
 * next to nothing in C (ppg_query_seed: the transition alone), a built-in re-rank (one
 * ppg_engine_rerank of 20 items over 4 sessions, the recommended recipe), and a training
 * run against a Java cost (ppg_engine_train, one upcall per sampled ranking), beside the same
 * run on the built-in EEL (no upcall: the training's own work per sample). Each is
 * warmed up, then timed in 7 rounds; the median round is printed in nanoseconds per call
 * (per upcall for the Java cost). scripts/bench-java runs it for both bindings in
 * alternation and prints the ratios (docs/performance.md).
 */
public final class Bench {
  private Bench() {}

  private static long sink;

  /** A timed body: runs {@code n} calls, returns how many units (calls, upcalls) it made. */
  private interface Body {
    long run(int n);
  }

  /** The median over 7 rounds of nanoseconds per unit, after {@code warm} rounds. */
  private static double time(Body body, int n, int warm) {
    for (int i = 0; i < warm; i++) {
      body.run(n);
    }
    double[] rounds = new double[7];
    for (int r = 0; r < rounds.length; r++) {
      long t0 = System.nanoTime();
      long units = body.run(n);
      rounds[r] = (double) (System.nanoTime() - t0) / units;
    }
    Arrays.sort(rounds);
    return rounds[rounds.length / 2];
  }

  public static void main(String[] args) {
    int items = 20;
    int sessions = 4;
    Ppg.Item[] query = new Ppg.Item[items];
    for (int k = 0; k < items; k++) {
      query[k] = new Ppg.Item(k, (items - k) % 5, k % 3 == 0 ? 1 : 0);
    }
    Ppg.TrainConfig config = Ppg.defaultTrainConfig();
    Ppg.ObjectiveConfig eel = Ppg.defaultObjective(Ppg.PPG_METRIC_EEL);
    try (Ppg.Engine engine = new Ppg.Engine(Ppg.PPG_METHOD_PPG, items, sessions, 16, 1)) {
      double seed =
          time(
              n -> {
                for (int i = 0; i < n; i++) {
                  sink += Ppg.querySeed(i, 7);
                }
                return n;
              },
              2_000_000,
              5);
      double rerank =
          time(
              n -> {
                for (int i = 0; i < n; i++) {
                  sink += engine.rerank(query, sessions, eel, config, i, null)[0];
                }
                return n;
              },
              200,
              3);
      // A cheap cost (the groups' exposure gap over rank weights): the upcall dominates.
      Ppg.Objective gap =
          (ranking, s) -> {
            double g = 0;
            for (int k = 0; k < ranking.length; k++) {
              g += (ranking[k] % 3 == 0 ? 1.0 : -0.5) / (k % items + 1);
            }
            return Math.abs(g) / s;
          };
      Ppg.TrainConfig noStop = Ppg.defaultTrainConfig();
      noStop.patience = 0;
      noStop.certify = false;
      long[] calls = {0};
      Ppg.Objective counted =
          (ranking, s) -> {
            calls[0]++;
            return gap.cost(ranking, s);
          };
      double upcall =
          time(
              n -> {
                long before = calls[0];
                for (int i = 0; i < n; i++) {
                  engine.setQuery(query, sessions);
                  engine.train(noStop, counted);
                }
                return calls[0] - before;
              },
              20,
              3);
      // The same training with the built-in EEL in C: the floor a Java cost adds to.
      double builtin =
          time(
              n -> {
                long samples = 0;
                for (int i = 0; i < n; i++) {
                  engine.setQuery(query, sessions);
                  samples += engine.trainBuiltin(noStop, eel).samples;
                }
                return samples;
              },
              20,
              3);
      System.out.printf(
          "%s query_seed %.1f ns, rerank %.0f ns, java cost %.1f ns per upcall,"
              + " built-in cost %.1f ns per sample (sink %d)%n",
          Ppg.binding(), seed, rerank, upcall, builtin, sink & 1);
    }
  }
}
