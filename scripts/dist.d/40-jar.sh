# The Java package: dist/ppg-V.jar and its Maven POM dist/ppg-V.pom
# (io.github.ppg-search:ppg:V, depending on JNA 5.13.0, the version of Debian's
# libjna-java in /usr/share/maven-repo).
#
# The jar holds the API classes of c-examples/java/ppg, Ppg.java and PpgLibrary.java (not
# the tests nor the README's examples beside them; a new API file must be listed here, or
# javac fails on the class it cannot find),
# compiled for Java 16 (--release 16: the API's records need it), and the C part's
# libppg.so at JNA's resource path linux-x86-64/libppg.so, so a program needs no
# jna.library.path on x86_64 Linux. The library comes from the C tarball in dist/ (the
# same bytes as libppg.so.V there), so this part runs after 10-c.
set -euo pipefail

jna=${PPG_JNA_JAR:-/usr/share/java/jna.jar}
for tool in javac jar; do
    command -v "$tool" >/dev/null || { echo "40-jar: $tool not found (Debian: default-jdk-headless)" >&2; exit 1; }
done
[[ -f $jna ]] || { echo "40-jar: JNA's jar not found at $jna (Debian: libjna-java; or set PPG_JNA_JAR)" >&2; exit 1; }
c_tarball=$PPG_DIST/ppg-$PPG_VERSION-x86_64-unknown-linux-gnu.tar.gz
[[ -f $c_tarball ]] || { echo "40-jar: $c_tarball is missing: run scripts/dist c first" >&2; exit 1; }

stage=$PPG_ROOT/target/dist-jar
rm -rf "$stage"
mkdir -p "$stage/classes/linux-x86-64" "$stage/classes/META-INF/maven/io.github.ppg-search/ppg"
tar -xzf "$c_tarball" -C "$stage" "ppg-$PPG_VERSION/lib/libppg.so.$PPG_VERSION"
mv "$stage/ppg-$PPG_VERSION/lib/libppg.so.$PPG_VERSION" "$stage/classes/linux-x86-64/libppg.so"

# The system library the classes fall back on must be this version's.
IFS=. read -r major minor _ <<<"$PPG_VERSION"
if [[ $major == 0 ]]; then soname=libppg.so.0.$minor; else soname=libppg.so.$major; fi
grep -q "String SONAME = \"$soname\";" c-examples/java/ppg/PpgLibrary.java || {
    echo "40-jar: PpgLibrary.SONAME is not $soname" >&2
    exit 1
}

sources=(c-examples/java/ppg/Ppg.java c-examples/java/ppg/PpgLibrary.java)
javac --release 16 -Xlint:all -Werror -cp "$jna" -d "$stage/classes" "${sources[@]}"

pom=$stage/classes/META-INF/maven/io.github.ppg-search/ppg/pom.xml
cat >"$pom" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.github.ppg-search</groupId>
  <artifactId>ppg</artifactId>
  <version>$PPG_VERSION</version>
  <packaging>jar</packaging>
  <name>ppg</name>
  <description>Fair re-ranking by Probabilistic Permutation Graph search: the C library libppg through JNA, with libppg.so for x86_64 Linux inside (Java 16 or later)</description>
  <url>https://github.com/ppg-search/ppg</url>
  <licenses>
    <license><name>MIT</name><url>https://opensource.org/licenses/MIT</url></license>
    <license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0</url></license>
  </licenses>
  <scm><url>https://github.com/ppg-search/ppg</url></scm>
  <dependencies>
    <dependency>
      <groupId>net.java.dev.jna</groupId>
      <artifactId>jna</artifactId>
      <version>5.13.0</version>
    </dependency>
  </dependencies>
</project>
POM
printf 'groupId=io.github.ppg-search\nartifactId=ppg\nversion=%s\n' "$PPG_VERSION" >"${pom%.xml}.properties"
cat >"$stage/manifest" <<MF
Implementation-Title: ppg
Implementation-Version: $PPG_VERSION
Automatic-Module-Name: ppg
MF

jar --create --file "$stage/ppg.jar" --manifest "$stage/manifest" -C "$stage/classes" .
cp "$pom" "$PPG_DIST/.ppg-$PPG_VERSION.pom.tmp"
cp "$stage/ppg.jar" "$PPG_DIST/.ppg-$PPG_VERSION.jar.tmp"
mv "$PPG_DIST/.ppg-$PPG_VERSION.pom.tmp" "$PPG_DIST/ppg-$PPG_VERSION.pom"
mv "$PPG_DIST/.ppg-$PPG_VERSION.jar.tmp" "$PPG_DIST/ppg-$PPG_VERSION.jar"
rm -rf "$stage"
