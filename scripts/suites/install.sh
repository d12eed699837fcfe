#!/usr/bin/env bash
# scripts/install against what a hostile or unlucky prefix holds, on tarballs made here in
# the shape of scripts/dist's (no build; the consumers suite installs the real one):
# - a link planted at a staging name redirects nothing (no victim file written, no link
#   installed);
# - an install killed midway (SIGKILL as it replaces the first file) leaves nothing once
#   the next install into that prefix has run, and nothing in TMPDIR;
# - two installs into one prefix at once end with exactly the files one manifest lists;
# - a prefix with & or | is written into ppg.pc as it is; one with \, a space or $ is
#   refused with a message naming it; a --libdir with a .. part is refused.
# needs-apt: pkg-config
# skip-var: PPG_SKIP_INSTALL
set -euo pipefail
if [[ ${PPG_SKIP_INSTALL:-} == 1 ]]; then
    echo "install: skipped (PPG_SKIP_INSTALL=1)"
    exit 0
fi
cd "$(dirname "$0")/../.."
install=$PWD/scripts/install

fail() {
    printf 'install suite: %s\n' "$*" >&2
    exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/ppg-install-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
export TMPDIR=$work/tmp

# tarball VERSION: $work/ppg-VERSION.tar.gz, the layout of scripts/dist's host tarball.
tarball() {
    local v=$1 top=$work/src/ppg-$1
    IFS=. read -r _ minor _ <<<"$v"
    mkdir -p "$top/include" "$top/lib/pkgconfig" "$top/lib/cmake/ppg" "$top/share/doc/ppg"
    echo "/* ppg.h $v */" >"$top/include/ppg.h"
    echo "/* ppg.hpp $v */" >"$top/include/ppg.hpp"
    echo "libppg.a $v" >"$top/lib/libppg.a"
    echo "libppg.so $v" >"$top/lib/libppg.so.$v"
    ln -s "libppg.so.$v" "$top/lib/libppg.so.0.$minor"
    ln -s "libppg.so.0.$minor" "$top/lib/libppg.so"
    cat >"$top/lib/pkgconfig/ppg.pc" <<EOF
prefix=\${pcfiledir}/../..
exec_prefix=\${prefix}
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: ppg
Description: Probabilistic Permutation Graph search
Version: $v
Libs: -L\${libdir} -lppg
Cflags: -I\${includedir}
EOF
    echo 'set(_ppg_lib_to_include "../../include")' >"$top/lib/cmake/ppg/ppgConfig.cmake"
    echo "ppg $v" >"$top/lib/cmake/ppg/ppgConfigVersion.cmake"
    echo "changes $v" >"$top/share/doc/ppg/CHANGELOG.md"
    tar -C "$work/src" -czf "$work/ppg-$v.tar.gz" "ppg-$v"
}
tarball 0.2.0
tarball 0.2.1

# exact PREFIX: the prefix holds the files its manifest lists, nothing else.
exact() {
    local listed present
    listed=$(sort "$1/share/ppg/manifest")
    present=$(cd "$1" && find . -mindepth 1 \( -type f -o -type l -o -name '*ppg-install*' \) |
        sed 's|^\./||' | sort)
    [[ $listed == "$present" ]] ||
        fail "$2: $1 holds other files than its manifest lists: $(diff <(echo "$listed") <(echo "$present") | grep '^[<>]' | tr '\n' ' ')"
}

# 1. Links planted at the names an install would stage under (main staged at
# <file>.ppg-install-<its pid>): the subshell's pid is the install's, as it execs it.
prefix=$work/planted
"$install" --from "$work/ppg-0.2.0.tar.gz" --prefix "$prefix" >/dev/null
echo victim >"$work/victim"
(
    while read -r rel; do
        ln -s "$work/victim" "$prefix/$rel.ppg-install-$BASHPID"
        ln -s "$work/victim" "$prefix/$rel.ppg-install.$BASHPID"
    done <"$prefix/share/ppg/manifest"
    exec "$install" --from "$work/ppg-0.2.1.tar.gz" --prefix "$prefix" >/dev/null
)
[[ $(cat "$work/victim") == victim ]] || fail "planted links: the install wrote through one into $work/victim"
[[ -f $prefix/include/ppg.h && ! -L $prefix/include/ppg.h ]] || fail "planted links: include/ppg.h is not a file"
[[ $(cat "$prefix/include/ppg.h") == "/* ppg.h 0.2.1 */" ]] || fail "planted links: include/ppg.h is not 0.2.1's"
exact "$prefix" "planted links"
echo "planted links: victim unchanged, ppg.h 0.2.1's, the links swept"

# 2. Killed as it replaces the first file (an `mv -fT` that kills its caller).
mkdir -p "$work/killer"
cat >"$work/killer/mv" <<'EOF'
#!/usr/bin/env bash
[[ $1 == -fT ]] && kill -KILL "$PPID"
exec /bin/mv "$@"
EOF
chmod +x "$work/killer/mv"
prefix=$work/killed
"$install" --from "$work/ppg-0.2.0.tar.gz" --prefix "$prefix" >/dev/null
if PATH=$work/killer:$PATH "$install" --from "$work/ppg-0.2.1.tar.gz" --prefix "$prefix" 2>/dev/null; then
    fail "killed install: it was not killed"
fi
left=$(find "$prefix" -name '*ppg-install*' | wc -l)
"$install" --from "$work/ppg-0.2.1.tar.gz" --prefix "$prefix" >/dev/null
exact "$prefix" "killed install, then another"
[[ -z $(ls -A "$TMPDIR") ]] || fail "killed install: TMPDIR holds $(ls -A "$TMPDIR")"
echo "killed install: $left .ppg-install names left, all swept by the next install; TMPDIR empty"

# 3. Two installs into one prefix at once, each of them slow to replace files.
mkdir -p "$work/slow"
cat >"$work/slow/mv" <<'EOF'
#!/usr/bin/env bash
sleep 0.05
exec /bin/mv "$@"
EOF
chmod +x "$work/slow/mv"
for round in 1 2 3; do
    prefix=$work/concurrent-$round
    "$install" --from "$work/ppg-0.2.0.tar.gz" --prefix "$prefix" >/dev/null
    PATH=$work/slow:$PATH "$install" --from "$work/ppg-0.2.1.tar.gz" --prefix "$prefix" >/dev/null 2>&1 &
    first=$!
    PATH=$work/slow:$PATH "$install" --from "$work/ppg-0.2.0.tar.gz" --prefix "$prefix" >/dev/null 2>&1 &
    second=$!
    wait "$first" || fail "concurrent installs: the first failed"
    wait "$second" || fail "concurrent installs: the second failed"
    exact "$prefix" "two concurrent installs (round $round)"
done
echo "concurrent installs: 3 rounds, each prefix exactly its manifest"

# 4. Paths written into ppg.pc.
prefix="$work/a&b|c"
"$install" --from "$work/ppg-0.2.1.tar.gz" --prefix "$prefix" >/dev/null
got=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=includedir ppg)
[[ $got == "$prefix/include" ]] || fail "prefix with & and |: pkg-config's includedir is $got"
# --cflags quotes for a shell, as a Makefile's $(shell ...) line hands it on.
cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags ppg)
eval "set -- $cflags"
[[ $# == 1 && $1 == "-I$prefix/include" ]] || fail "prefix with & and |: pkg-config --cflags ppg says $cflags"
echo "prefix $prefix: pkg-config --cflags ppg says $cflags"
for bad in "$work/back\\1slash" "$work/a space" "$work/dollar\$x"; do
    if message=$("$install" --from "$work/ppg-0.2.1.tar.gz" --prefix "$bad" 2>&1); then
        fail "prefix $bad was accepted"
    fi
    [[ $message == *"--prefix $bad: a path here may not hold"* ]] || fail "prefix $bad: $message"
    [[ ! -e $bad ]] || fail "prefix $bad was refused after creating it"
done
echo "refused: \\, a space, \$ in --prefix"
prefix=$work/libdirs
for bad in ../outside "$prefix/../outside" lib/../../outside; do
    if message=$("$install" --from "$work/ppg-0.2.1.tar.gz" --prefix "$prefix" --libdir "$bad" 2>&1); then
        fail "--libdir $bad was accepted"
    fi
    [[ $message == *"--libdir $bad must be a folder inside --prefix"* ]] || fail "--libdir $bad: $message"
done
[[ ! -e $work/outside && ! -e $prefix ]] || fail "a refused --libdir wrote something"
echo "refused: --libdir ../outside, $prefix/../outside, lib/../../outside"
