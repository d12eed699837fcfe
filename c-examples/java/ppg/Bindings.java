package ppg;

/**
 * The binding {@link Ppg} uses on Java 16 to 21: JNA. The jar's META-INF/versions/22 holds
 * another version of this class that picks the FFM binding on Java 22 and later (a
 * multi-release jar: the JVM reads the newest version it can run).
 */
final class Bindings {
  static final Binding BINDING = choose();

  private Bindings() {}

  private static Binding choose() {
    String asked = System.getProperty("ppg.binding", "jna");
    if (!asked.equals("jna")) {
      throw new IllegalArgumentException(
          "-Dppg.binding="
              + asked
              + ": Java "
              + Runtime.version().feature()
              + " has the JNA binding only (FFM needs Java 22 or later)");
    }
    return new JnaBinding();
  }
}
