# The C and C++ library for x86_64 Linux: dist/ppg-V-x86_64-unknown-linux-gnu.tar.gz.
#
#   ppg-V/include/ppg.h, ppg.hpp
#   ppg-V/lib/libppg.a
#   ppg-V/lib/libppg.so -> libppg.so.N -> libppg.so.V   (SONAME libppg.so.N: N = 0.MINOR
#                                                        while the major is 0, else MAJOR)
#   ppg-V/lib/pkgconfig/ppg.pc                          (relocatable: ${pcfiledir})
#   ppg-V/lib/cmake/ppg/ppgConfig.cmake, ppgConfigVersion.cmake  (ppg::ppg, ppg::ppg_static)
#
# One build: cargo-c (`cargo cinstall`, which builds libppg.so with its SONAME, libppg.a and
# ppg.pc from the release profile) into a staging folder under target/. What ships has no
# debug info: both libraries are stripped of it (the Rust standard library brings its own
# into libppg.a). The build has full debug info so that libppg.so's goes to a separate file,
# target/dist-c/debug/libppg.so.V.debug (linked by .gnu_debuglink), which the ABI check
# (abidw) reads. scripts/install installs the tarball.
set -euo pipefail
: "${PPG_VERSION:?run through scripts/dist}" "${PPG_DIST:?}" "${PPG_ROOT:?}"
cd "$PPG_ROOT"

triple=x86_64-unknown-linux-gnu
name=ppg-$PPG_VERSION-$triple
IFS=. read -r major minor _ <<<"$PPG_VERSION"
if [[ $major == 0 ]]; then soname=libppg.so.0.$minor; else soname=libppg.so.$major; fi

for tool in cargo-cinstall strip objcopy cmake tar; do
    command -v "$tool" >/dev/null || {
        echo "10-c: $tool not found (cargo-c: cargo install --locked cargo-c@0.10.24; binutils; cmake)" >&2
        exit 1
    }
done

stage=$PPG_ROOT/target/dist-c
rm -rf "$stage"
top=$stage/ppg-$PPG_VERSION
CARGO_PROFILE_RELEASE_DEBUG=2 cargo cinstall --release --locked -p ppg-ffi --target "$triple" \
    --prefix=/ --libdir=lib --includedir=include --destdir="$top"

# cargo-c writes the prefix it was given; ours is wherever the tarball lands.
lib=$top/lib
[[ -f $lib/libppg.so.$PPG_VERSION && -L $lib/libppg.so && -f $lib/libppg.a ]] || {
    echo "10-c: cargo cinstall did not make $lib/libppg.{so.$PPG_VERSION,so,a}" >&2
    exit 1
}
readelf -d "$lib/libppg.so.$PPG_VERSION" | grep -q "Library soname: \[$soname\]" || {
    echo "10-c: libppg.so.$PPG_VERSION lacks SONAME $soname" >&2
    exit 1
}
# cargo-c links libppg.so straight to the full version; the chain goes through the SONAME.
ln -sfn "$soname" "$lib/libppg.so"
strip --strip-debug "$lib/libppg.a"
mkdir -p "$stage/debug"
objcopy --only-keep-debug "$lib/libppg.so.$PPG_VERSION" "$stage/debug/libppg.so.$PPG_VERSION.debug"
strip --strip-unneeded "$lib/libppg.so.$PPG_VERSION"
objcopy --add-gnu-debuglink="$stage/debug/libppg.so.$PPG_VERSION.debug" "$lib/libppg.so.$PPG_VERSION"
sed -i -e 's|^prefix=.*|prefix=${pcfiledir}/../..|' -e 's|^libdir=.*|libdir=${prefix}/lib|' \
    -e 's|^includedir=.*|includedir=${prefix}/include|' "$lib/pkgconfig/ppg.pc"
if grep -q rpath "$lib/pkgconfig/ppg.pc"; then
    echo "10-c: ppg.pc records an rpath" >&2
    exit 1
fi

# The C++ wrapper, next to the header it includes.
install -m 644 include/ppg.hpp "$top/include/ppg.hpp"
cmp -s include/ppg.h "$top/include/ppg.h" || {
    echo "10-c: the installed ppg.h is not include/ppg.h" >&2
    exit 1
}

# What a distribution ships beside a library: its licences and changelog.
install -d "$top/share/doc/ppg"
install -m 644 LICENSE-MIT LICENSE-APACHE CHANGELOG.md "$top/share/doc/ppg/"

mkdir -p "$lib/cmake/ppg"
cmake -DPPG_VERSION="$PPG_VERSION" -DPPG_SONAME="$soname" -DOUT="$lib/cmake/ppg" \
    -P packaging/cmake/package.cmake

tarball=$PPG_DIST/$name.tar.gz
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name \
    -czf "$tarball.part" "ppg-$PPG_VERSION"
mv -f "$tarball.part" "$tarball"
echo "10-c: $tarball"
(cd "$stage" && find "ppg-$PPG_VERSION" \( -type f -o -type l \) -printf '  %p %s B\n' | sort)
