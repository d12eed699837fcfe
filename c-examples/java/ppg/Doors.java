package ppg;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java door of the same-answer test (tests/bindings.rs): re-ranks each query of
 * tests/doors/rows.tsv (its first argument) with {@link Ppg.Engine#rerank} under the
 * recommended recipe (the second argument, {@code eel} by default or {@code ee}, the official
 * expected exposure; the third, the sessions, 1 to 3, 3 by default; query k seeded with
 * {@code Ppg.querySeed(11, k)}) and prints what {@code ppg rerank --metric METRIC --sessions
 * SESSIONS --seed 11} prints.
 */
public final class Doors {
  private static final int MAX_SESSIONS = 3;
  private static final long SEED = 11;

  private Doors() {}

  public static void main(String[] args) throws IOException {
    List<String> lines = Files.readAllLines(Path.of(args[0]));
    int sessions = args.length > 2 ? Integer.parseInt(args[2]) : MAX_SESSIONS;
    if (sessions < 1 || sessions > MAX_SESSIONS) {
      throw new IllegalArgumentException("sessions: " + sessions + " is not 1 to " + MAX_SESSIONS);
    }
    int metric =
        args.length > 1 && args[1].equals("ee")
            ? Ppg.PPG_METRIC_EXPECTED_EXPOSURE
            : Ppg.PPG_METRIC_EEL;
    StringBuilder out = new StringBuilder("qid\tsession\trank\titem\n");
    try (Ppg.Engine engine = new Ppg.Engine(Ppg.PPG_METHOD_PPG, 64, MAX_SESSIONS, 16, 0)) {
      List<Ppg.Item> items = new ArrayList<>();
      String qid = null;
      long k = 0;
      for (int i = 1; i <= lines.size(); i++) {
        String[] c = i < lines.size() ? lines.get(i).split("\t") : null;
        if (!items.isEmpty() && (c == null || !c[0].equals(qid))) {
          long[] ranked =
              engine.rerank(
                  items.toArray(new Ppg.Item[0]),
                  sessions,
                  Ppg.defaultObjective(metric),
                  Ppg.defaultTrainConfig(),
                  Ppg.querySeed(SEED, k++),
                  null);
          int n = items.size();
          for (int s = 0; s < sessions; s++) {
            for (int r = 0; r < n; r++) {
              out.append(qid).append('\t').append(s + 1).append('\t').append(r + 1);
              out.append('\t').append(ranked[s * n + r]).append('\n');
            }
          }
          items.clear();
        }
        if (c == null) {
          break;
        }
        qid = c[0];
        items.add(
            new Ppg.Item(Long.parseLong(c[1]), Double.parseDouble(c[4]), Integer.parseInt(c[3])));
      }
    }
    System.out.print(out);
  }
}
