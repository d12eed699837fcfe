package ppg;

/**
 * The binding {@link Ppg} uses on Java 22 and later (this class is the jar's
 * META-INF/versions/22 version of ../ppg/Bindings.java): the Foreign Function and Memory
 * API, which needs no JNA on the class path; {@code -Dppg.binding=jna} picks JNA instead
 * (for a comparison, or to keep JNA's behaviour).
 */
final class Bindings {
  static final Binding BINDING = choose();

  private Bindings() {}

  private static Binding choose() {
    String asked = System.getProperty("ppg.binding", "ffm");
    return switch (asked) {
      case "ffm" -> new FfmBinding();
      case "jna" -> new JnaBinding();
      default ->
          throw new IllegalArgumentException(
              "-Dppg.binding=" + asked + ": expected ffm (the default on Java 22+) or jna");
    };
  }
}
