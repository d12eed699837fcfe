package consumer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import ppg.Ppg;

/**
 * Re-ranks every query of a {@code ppg rerank} input through the released jar and writes to
 * OUT what {@code ppg rerank FILE --seed SEED --sessions SESSIONS} prints (to a file: run
 * through Maven, standard output also carries Maven's console codes).
 *
 * <p>Usage: {@code Rerank FILE SEED SESSIONS OUT}. OUT.binding receives the binding in use
 * and whether JNA is on the class path (the suite expects FFM without JNA on Java 22+).
 */
public final class Rerank {
  private Rerank() {}

  /** One query's rows, in input order; group ids by first appearance in the file. */
  private static final class Query {
    final String qid;
    final List<String> item = new ArrayList<>();
    final List<Double> score = new ArrayList<>();
    final List<Double> utility = new ArrayList<>();
    final List<Integer> group = new ArrayList<>();

    Query(String qid) {
      this.qid = qid;
    }
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 4) {
      System.err.println("usage: Rerank FILE SEED SESSIONS OUT");
      System.exit(2);
    }
    long seed = Long.parseUnsignedLong(args[1]);
    int sessions = Integer.parseInt(args[2]);
    List<Query> queries = parse(Files.readAllLines(Path.of(args[0])));
    StringBuilder out = new StringBuilder("qid\tsession\trank\titem\n");
    for (int index = 0; index < queries.size(); index++) {
      Query q = queries.get(index);
      int[] order = startingOrder(q.score);
      int[] best = rerank(q, order, querySeed(seed, index), sessions);
      int n = order.length;
      for (int s = 0; s < sessions; s++) {
        for (int rank = 0; rank < n; rank++) {
          out.append(q.qid).append('\t').append(s + 1).append('\t').append(rank + 1).append('\t');
          out.append(q.item.get(order[best[s * n + rank]])).append('\n');
        }
      }
    }
    Files.writeString(Path.of(args[3]), out);
    Files.writeString(
        Path.of(args[3] + ".binding"),
        "binding "
            + Ppg.binding()
            + ", JNA on the class path: "
            + (Rerank.class.getClassLoader().getResource("com/sun/jna/Native.class") != null
                ? "yes"
                : "no")
            + "\n");
  }

  /** Rows by score, descending; ties: the later row first ({@code ppg rerank}'s start). */
  static int[] startingOrder(List<Double> score) {
    List<Integer> rows = new ArrayList<>();
    for (int i = 0; i < score.size(); i++) {
      rows.add(i);
    }
    // Stable ascending by score (Double.compare orders as Rust's total_cmp on these), reversed.
    rows.sort((a, b) -> Double.compare(score.get(a), score.get(b)));
    int[] order = new int[rows.size()];
    for (int k = 0; k < order.length; k++) {
      order[k] = rows.get(rows.size() - 1 - k);
    }
    return order;
  }

  /** SplitMix64's finaliser, the mixing step of {@code ppg rerank}'s seeds. */
  static long mix(long z) {
    z += 0x9e3779b97f4a7c15L;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** The seed {@code ppg rerank --seed seed} gives the query at {@code index}. */
  static long querySeed(long seed, long index) {
    return mix(mix(seed) ^ mix(index));
  }

  /**
   * Trains as {@code ppg rerank} does without options (EEL with 5 levels, exposure from
   * rank 1, group order held for the first part of a run, the input scored first,
   * sessions grown); the best rankings as positions of the starting order.
   */
  static int[] rerank(Query q, int[] order, long seed, int sessions) {
    int n = order.length;
    int[] out = new int[n * sessions];
    if (n < 2 || new HashSet<>(q.group).size() < 2) {
      // One group: nothing to optimise, the input ranking is the answer.
      for (int i = 0; i < out.length; i++) {
        out[i] = i % n;
      }
      return out;
    }
    // The recipe in one call, as `ppg rerank` runs it (the library's defaults are the CLI's):
    // the step-wise calls train but do not take the recipe's last step, the most relevant
    // of the rankings as fair as the one found.
    Ppg.TrainConfig config = Ppg.defaultTrainConfig();
    try (Ppg.Engine engine = new Ppg.Engine(Ppg.PPG_METHOD_PPG, n, sessions, config.batch, seed)) {
      Ppg.Item[] items = new Ppg.Item[n];
      for (int k = 0; k < n; k++) {
        items[k] = new Ppg.Item(k, q.utility.get(order[k]), q.group.get(order[k]));
      }
      long[] best =
          engine.rerank(
              items, sessions, Ppg.defaultObjective(Ppg.PPG_METRIC_EEL), config, seed, null);
      for (int i = 0; i < out.length; i++) {
        out[i] = (int) best[i];
      }
    }
    return out;
  }

  /** The queries of a {@code ppg rerank} input (a query's rows together). */
  static List<Query> parse(List<String> lines) {
    Map<String, Integer> col = new HashMap<>();
    String[] header = lines.get(0).split("\t", -1);
    for (int i = 0; i < header.length; i++) {
      col.put(header[i], i);
    }
    Integer label = col.get("label");
    Map<String, Integer> groupId = new HashMap<>();
    List<Query> queries = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\t", -1);
      String qid = f[col.get("qid")];
      if (queries.isEmpty() || !queries.get(queries.size() - 1).qid.equals(qid)) {
        queries.add(new Query(qid));
      }
      Query q = queries.get(queries.size() - 1);
      double score = Double.parseDouble(f[col.get("score")]);
      q.item.add(f[col.get("item")]);
      q.score.add(score);
      q.utility.add(label == null ? score : Double.parseDouble(f[label]));
      q.group.add(groupId.computeIfAbsent(f[col.get("group")], g -> groupId.size()));
    }
    return queries;
  }
}
