# The Java package: dist/ppg-V.jar and its Maven POM dist/ppg-V.pom
# (io.github.ppg-search:ppg:V, depending on JNA 5.13.0, the version of Debian's
# libjna-java in /usr/share/maven-repo).
#
# A multi-release jar. Its base holds the API classes of c-examples/java/ppg (all but the
# tests and examples beside them, listed below: a new API file must be listed here, or
# javac fails on the class it cannot find), compiled for Java 16 (--release 16: the API's
# records need it), which bind libppg through JNA; META-INF/versions/22 holds
# c-examples/java/java22/ppg, compiled --release 22 by a JDK 22 or later (PPG_JDK22, else
# the first /usr/lib/jvm/* whose javac is 22+): the Foreign Function and Memory binding and
# the Bindings class that picks it, so Java 22+ needs no JNA. The manifest says
# Multi-Release and Enable-Native-Access: ALL-UNNAMED (which Java honours only for a jar
# run with java -jar: docs/packages.md). And the C part's libppg.so at JNA's resource
# path linux-x86-64/libppg.so, so a program needs no jna.library.path on x86_64 Linux. The
# library comes from the C tarball in dist/ (the same bytes as libppg.so.V there), so this
# part runs after 10-c.
set -euo pipefail

jna=${PPG_JNA_JAR:-/usr/share/java/jna.jar}
for tool in javac jar; do
    command -v "$tool" >/dev/null || { echo "40-jar: $tool not found (Debian: default-jdk-headless)" >&2; exit 1; }
done
jdk22=${PPG_JDK22:-}
if [[ -z $jdk22 ]]; then
    for home in /usr/lib/jvm/*/; do
        [[ -x $home/bin/javac ]] || continue
        feature=$("$home/bin/javac" -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')
        if [[ -n $feature ]] && ((feature >= 22)); then jdk22=${home%/}; break; fi
    done
fi
[[ -n $jdk22 && -x $jdk22/bin/javac ]] || {
    echo "40-jar: no JDK 22 or later for the FFM binding (set PPG_JDK22 to its home; e.g. Temurin 25)" >&2
    exit 1
}
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
grep -q "String SONAME = \"$soname\";" c-examples/java/ppg/Loader.java || {
    echo "40-jar: Loader.SONAME is not $soname" >&2
    exit 1
}

sources=(c-examples/java/ppg/{Ppg,PpgConstants,Binding,Bindings,Loader,JnaBinding,PpgLibrary}.java)
javac --release 16 -Xlint:all -Werror -cp "$jna" -d "$stage/classes" "${sources[@]}"
mkdir -p "$stage/classes-22"
"$jdk22/bin/javac" --release 22 -Xlint:all -Werror -cp "$stage/classes" -d "$stage/classes-22" \
    c-examples/java/java22/ppg/*.java

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
  <description>Fair re-ranking by Probabilistic Permutation Graph search: the C library libppg through the Foreign Function and Memory API on Java 22 or later (JNA not needed there) and through JNA on Java 16 to 21, with libppg.so for x86_64 Linux inside</description>
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
Multi-Release: true
Enable-Native-Access: ALL-UNNAMED
MF

# The JDK 22's jar: it checks that the versioned classes add no public API to the base.
"$jdk22/bin/jar" --create --file "$stage/ppg.jar" --manifest "$stage/manifest" -C "$stage/classes" . \
    --release 22 -C "$stage/classes-22" .
cp "$pom" "$PPG_DIST/.ppg-$PPG_VERSION.pom.tmp"
cp "$stage/ppg.jar" "$PPG_DIST/.ppg-$PPG_VERSION.jar.tmp"
mv "$PPG_DIST/.ppg-$PPG_VERSION.pom.tmp" "$PPG_DIST/ppg-$PPG_VERSION.pom"
mv "$PPG_DIST/.ppg-$PPG_VERSION.jar.tmp" "$PPG_DIST/ppg-$PPG_VERSION.jar"
rm -rf "$stage"
