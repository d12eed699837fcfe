package ppg;

/**
 * The README's Java example, verbatim between the markers (tests/readme.rs checks it): four
 * items of equal utility, two groups, two sessions, trained on the built-in EEL. Prints
 * {@code 8 true}, which tests/bindings.rs expects.
 */
public final class Example {
  private Example() {}

  /** Runs the example. */
  public static void main(String[] args) {
    // README begin
    try (Ppg.Engine engine = new Ppg.Engine(Ppg.PPG_METHOD_PPG, 4, 2, 16, 42)) {
      Ppg.Item[] items = {
        new Ppg.Item(1, 2, 0), new Ppg.Item(2, 2, 0), new Ppg.Item(3, 2, 1), new Ppg.Item(4, 2, 1)
      };
      engine.setQuery(items, 2);
      engine.trainBuiltin(Ppg.defaultTrainConfig(), Ppg.defaultObjective(Ppg.PPG_METRIC_EEL));
      Ppg.Best best = engine.best();
      System.out.println(best.ranking().length + " " + (best.cost() < 0.01));
    }
    // README end
  }
}
