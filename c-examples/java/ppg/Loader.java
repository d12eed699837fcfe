package ppg;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * Which {@code libppg.so} a binding loads, the same for JNA and FFM: the one in {@code
 * jna.library.path} when that is set; else the one the jar carries for this platform
 * ({@code linux-x86-64/libppg.so} in the released jar, JNA's resource path), which is the
 * version of these classes; else, or when that copy cannot be loaded (the temporary folder
 * mounted noexec), the system's {@link #SONAME} ({@code LD_LIBRARY_PATH}, the loader's
 * folders). When none loads, the error says what to set.
 *
 * <p>The carried copy is written to JNA's temporary folder ({@code jna.tmpdir}, else {@code
 * ~/.cache/JNA/temp}; the FFM binding uses the same, so a program moving to Java 22 sets
 * nothing new) as {@code ppg-<pid>-<n>-libppg.so} and deleted as soon as it is loaded (the
 * mapping stays), so a JVM killed with SIGKILL leaves at most a copy it had not loaded yet;
 * the next load removes the copies of processes that no longer run.
 */
final class Loader {
  /** The library's SONAME, the system copy this version of the classes can use. */
  static final String SONAME = "libppg.so.0.2";

  private Loader() {}

  /** How a binding opens a library. */
  interface Opener<T> {
    /** Opens {@code jna.library.path}'s libppg (JNA searches it itself). */
    T onLibraryPath(String path);

    /** Opens the library at an absolute path or, given {@link #SONAME}, the system's. */
    T open(String pathOrName);
  }

  /** The platform folder of the jar's copy: JNA's resource prefix, e.g. linux-x86-64. */
  static String platform() {
    String os = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(java.util.Locale.ROOT);
    String osName = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "darwin" : os;
    String archName =
        switch (arch) {
          case "amd64", "x86_64" -> "x86-64";
          case "aarch64", "arm64" -> "aarch64";
          default -> arch;
        };
    return osName + "-" + archName;
  }

  static <T> T load(Opener<T> opener) {
    String libraryPath = System.getProperty("jna.library.path");
    if (libraryPath != null) {
      return opener.onLibraryPath(libraryPath);
    }
    // JNA's own order would try the system's folders before the jar: an older libppg
    // installed there would win over the one built with these classes.
    String resource = platform() + "/" + copyName();
    URL carried = Loader.class.getClassLoader().getResource(resource);
    if (carried == null) {
      return system(
          opener,
          "the class path holds no " + resource + " (the released jar carries linux-x86-64 only)",
          null);
    }
    File dir = null;
    File copy = null;
    try {
      dir = tempDir();
      sweep(dir);
      String pid = String.valueOf(ProcessHandle.current().pid());
      copy = File.createTempFile("ppg-" + pid + "-", "-" + copyName(), dir);
      try (InputStream in = carried.openStream()) {
        Files.copy(in, copy.toPath(), StandardCopyOption.REPLACE_EXISTING);
      }
      return opener.open(copy.getAbsolutePath());
    } catch (IOException | UnsatisfiedLinkError e) {
      return system(
          opener,
          "the jar's copy could not be loaded from "
              + (dir != null ? dir : "JNA's temporary folder")
              + " ("
              + e.getMessage()
              + "; a folder mounted noexec cannot hold libraries)",
          e);
    } finally {
      // Loaded (mapped) or not, the file is no longer needed.
      if (copy != null && !copy.delete()) {
        copy.deleteOnExit();
      }
    }
  }

  /**
   * JNA's temporary folder, by JNA's rule (its own function is not public): {@code
   * jna.tmpdir}, else {@code $XDG_CACHE_HOME/JNA/temp} ({@code ~/.cache/JNA/temp}), else
   * {@code java.io.tmpdir}.
   */
  private static File tempDir() throws IOException {
    String set = System.getProperty("jna.tmpdir");
    File dir;
    if (set != null) {
      dir = new File(set);
    } else {
      String xdg = System.getenv("XDG_CACHE_HOME");
      File cache =
          xdg == null || xdg.isEmpty()
              ? new File(System.getProperty("user.home"), ".cache")
              : new File(xdg);
      dir = new File(cache, "JNA/temp");
    }
    dir.mkdirs();
    if (set == null && !(dir.isDirectory() && dir.canWrite())) {
      dir = new File(System.getProperty("java.io.tmpdir"));
    }
    if (!dir.isDirectory()) {
      throw new IOException("no folder " + dir);
    }
    return dir;
  }

  /** The file name of the library, {@code libppg.so} on Linux. */
  static String copyName() {
    return System.mapLibraryName("ppg");
  }

  /** The system's {@link #SONAME}, or an error saying why the jar's copy was not used. */
  private static <T> T system(Opener<T> opener, String whyNotTheJars, Throwable cause) {
    try {
      return opener.open(SONAME);
    } catch (UnsatisfiedLinkError noSystemLibrary) {
      UnsatisfiedLinkError e =
          new UnsatisfiedLinkError(
              "libppg for platform "
                  + platform()
                  + " not loaded: "
                  + whyNotTheJars
                  + ", and the system has no "
                  + SONAME
                  + ". Set -Djna.tmpdir=<a folder where libraries may be loaded from>,"
                  + " or install libppg (scripts/install) or build it and run with"
                  + " -Djna.library.path=<its folder>");
      if (cause != null) {
        e.addSuppressed(cause);
      }
      e.addSuppressed(noSystemLibrary);
      throw e;
    }
  }

  /** Removes the copies left in {@code dir} by processes that no longer run (SIGKILL). */
  private static void sweep(File dir) {
    File[] left =
        dir.listFiles((d, name) -> name.startsWith("ppg-") && name.endsWith("-" + copyName()));
    if (left == null) {
      return;
    }
    for (File f : left) {
      String[] parts = f.getName().split("-", 3);
      try {
        if (ProcessHandle.of(Long.parseLong(parts[1])).isEmpty()) {
          f.delete();
        }
      } catch (NumberFormatException notOurs) {
        // Another program's file of a similar name: left alone.
      }
    }
  }
}
