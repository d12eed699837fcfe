#!/usr/bin/env bash
# The release artifacts as an outside project uses them. scripts/dist builds dist/; each
# consumer project of consumers/ is copied to a temporary folder outside the checkout and
# built against the unpacked tarballs alone; each re-ranks one query and must print the
# rankings `ppg rerank` prints for the same rows and seed. Then scripts/install (a fresh
# prefix with another library folder, over an earlier version, a failed install) and the
# ABI of libppg.so against the last release's (abi/, see scripts/abi-baseline).
# needs-apt: build-essential pkg-config cmake qemu-system-arm gcc-arm-none-eabi abigail-tools
# needs-rustup-target: thumbv7em-none-eabihf
# needs-cargo: cargo-c@0.10.24
# skip-var: PPG_SKIP_CONSUMERS
#
# Run from the repository root with bash. A consumer is one function below, listed in
# `checks` at the end; it gets the unpacked host tarball as $host, the firmware one as
# $firmware, a scratch folder of its own as $1, and returns non-zero on failure.
set -euo pipefail

root=$PWD
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
IFS=. read -r major minor _ <<<"$version"
if [[ $major == 0 ]]; then soname=libppg.so.0.$minor; else soname=libppg.so.$major; fi

say() { printf '== consumers: %s\n' "$*"; }
fail() {
    printf 'consumers: %s\n' "$*" >&2
    return 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/ppg-consumers.XXXXXX")
trap 'rm -rf "$work"' EXIT
case $(realpath "$work")/ in
"$(realpath "$root")"/*) fail "the scratch folder $work is inside the checkout"; exit 1 ;;
esac

bash scripts/dist c firmware
cargo build --release --locked -p ppg-cli --quiet
cli=$root/target/release/ppg

mkdir -p "$work/dist"
tar -C "$work/dist" -xzf "dist/ppg-$version-x86_64-unknown-linux-gnu.tar.gz"
host=$work/dist/ppg-$version
mkdir -p "$work/dist-firmware"
tar -C "$work/dist-firmware" -xzf "dist/ppg-$version-thumbv7em-none-eabihf.tar.gz"
firmware=$work/dist-firmware/ppg-$version

# copy DEST FILE...: a consumer project's files, flat, into DEST (outside the checkout).
copy() {
    local dest=$1
    shift
    mkdir -p "$dest"
    cp -- "$@" "$dest/"
}

# same_as_cli WHAT OUTPUT: OUTPUT holds the query's rows ("input" lines) and the
# consumer's rankings ("output" lines); `ppg rerank` of those rows must print the latter.
same_as_cli() {
    local what=$1 out=$2 dir
    dir=$(dirname "$out")
    grep '^input' "$out" | cut -f2- >"$dir/rows.tsv"
    grep '^output' "$out" | cut -f2- >"$dir/mine.tsv"
    [[ -s $dir/rows.tsv && -s $dir/mine.tsv ]] || fail "$what printed no query or no ranking"
    "$cli" rerank "$dir/rows.tsv" --sessions 2 --seed 7 --progress never >"$dir/cli.tsv"
    if ! cmp -s "$dir/mine.tsv" "$dir/cli.tsv"; then
        diff "$dir/mine.tsv" "$dir/cli.tsv" >&2 || true
        fail "$what: its rankings differ from ppg rerank's"
    fi
    echo "$what: $(($(wc -l <"$dir/mine.tsv") - 1)) ranked rows equal ppg rerank's"
}

# The C program through pkg-config: linked with libppg.so (NEEDED libppg.so.N, no run
# path, so LD_LIBRARY_PATH finds it) and with libppg.a (no NEEDED libppg at all).
consumer_c_pkgconfig() {
    local dir=$1
    copy "$dir" consumers/c-pkgconfig/Makefile consumers/common/rerank_query.c \
        c-examples/firmware/platform.h c-examples/firmware/host.c
    PKG_CONFIG_PATH=$host/lib/pkgconfig make -s -C "$dir"
    local needed
    needed=$(readelf -d "$dir/rerank-shared" | grep -E 'NEEDED|RPATH|RUNPATH')
    echo "rerank-shared: $(tr -s ' ' <<<"$needed" | grep -o '\[.*\]' | tr '\n' ' ')"
    grep -q "NEEDED.*\[$soname\]" <<<"$needed" || fail "rerank-shared does not need $soname"
    ! grep -qE 'RPATH|RUNPATH' <<<"$needed" || fail "rerank-shared records a run path"
    ! readelf -d "$dir/rerank-static" | grep -q 'NEEDED.*libppg' ||
        fail "rerank-static needs libppg.so"
    LD_LIBRARY_PATH=$host/lib "$dir/rerank-shared" >"$dir/shared.out"
    same_as_cli "C, pkg-config, libppg.so" "$dir/shared.out"
    mkdir -p "$dir/static"
    "$dir/rerank-static" >"$dir/static/static.out"
    same_as_cli "C, pkg-config --static, libppg.a" "$dir/static/static.out"
}

# The firmware image: the thumbv7em libppg.a linked into a bare Cortex-M4F image, run
# under QEMU (semihosting prints its output and exits with its status).
consumer_firmware() {
    local dir=$1
    copy "$dir" consumers/firmware/Makefile consumers/common/rerank_query.c \
        c-examples/firmware/{platform.h,startup.c,semihost.c,mps2-an386.ld}
    make -s -C "$dir" PPG="$firmware"
    timeout 300 make -s -C "$dir" PPG="$firmware" run >"$dir/qemu.out"
    same_as_cli "firmware (thumbv7em libppg.a, QEMU mps2-an386)" "$dir/qemu.out"
}

# scripts/install: into a fresh prefix with Debian's library folder (then the C consumer
# builds against it through pkg-config); over an earlier version (whose files it does not
# keep); and a failed install (which names the path, exits 1 and changes nothing).
check_install() {
    local dir=$1 tarball=$root/dist/ppg-$version-x86_64-unknown-linux-gnu.tar.gz
    local prefix=$dir/fresh libdir=lib/x86_64-linux-gnu
    scripts/install --from "$tarball" --prefix "$prefix" --libdir "$libdir"
    copy "$dir/c" consumers/c-pkgconfig/Makefile consumers/common/rerank_query.c \
        c-examples/firmware/platform.h c-examples/firmware/host.c
    PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig make -s -C "$dir/c" rerank-shared
    LD_LIBRARY_PATH=$prefix/$libdir "$dir/c/rerank-shared" >"$dir/c/installed.out"
    same_as_cli "C against scripts/install --libdir $libdir" "$dir/c/installed.out"
    grep -q '^set(_ppg_lib_to_include "../../include")' "$prefix/$libdir/cmake/ppg/ppgConfig.cmake" ||
        fail "ppgConfig.cmake does not find include/ from $libdir"

    # An earlier version: the same tarball with its library named 0.1.
    local old=$dir/old
    mkdir -p "$old"
    tar -C "$old" -xzf "$tarball"
    mv "$old/ppg-$version" "$old/ppg-0.1.0"
    (
        cd "$old/ppg-0.1.0/lib"
        mv "libppg.so.$version" libppg.so.0.1.0
        rm libppg.so "$soname"
        ln -s libppg.so.0.1.0 libppg.so.0.1
        ln -s libppg.so.0.1 libppg.so
    )
    tar -C "$old" -czf "$old/ppg-0.1.0.tar.gz" ppg-0.1.0
    prefix=$dir/upgraded
    scripts/install --from "$old/ppg-0.1.0.tar.gz" --prefix "$prefix"
    scripts/install --from "$tarball" --prefix "$prefix"
    [[ -z $(find "$prefix" -name 'libppg.so.0.1*') ]] || fail "the earlier version's libppg.so.0.1* stayed"
    [[ $(readlink -f "$prefix/lib/libppg.so") == "$prefix/lib/libppg.so.$version" ]] ||
        fail "libppg.so does not lead to libppg.so.$version"
    local listed present
    listed=$(sort "$prefix/share/ppg/manifest")
    present=$(cd "$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
    [[ $listed == "$present" ]] || fail "after the upgrade the prefix holds other files than the manifest lists"
    echo "install over 0.1.0: $(wc -l <<<"$present") files, all of $version"

    # A failure: a folder where the new version's library goes.
    prefix=$dir/failed
    scripts/install --from "$old/ppg-0.1.0.tar.gz" --prefix "$prefix"
    mkdir "$prefix/lib/libppg.so.$version"
    local before after message
    before=$(cd "$prefix" && find . -printf '%p %s %l\n' | sort)
    if message=$(scripts/install --from "$tarball" --prefix "$prefix" 2>&1); then
        fail "scripts/install succeeded with a folder in the way"
    fi
    grep -qF "$prefix/lib/libppg.so.$version" <<<"$message" || fail "the failure does not name the path: $message"
    after=$(cd "$prefix" && find . -printf '%p %s %l\n' | sort)
    [[ $before == "$after" ]] || fail "the failed install changed the prefix"
    echo "failed install: \"$message\", prefix unchanged"
}

# The ABI of the libppg.so scripts/dist built (abidw reads its separate debug info)
# against the last release's baseline: an incompatible change fails unless the SONAME
# changed with it (the version says it breaks); abidiff's report is shown either way.
check_abi() {
    local dir=$1 baselines
    mkdir -p "$dir"
    shopt -s nullglob
    baselines=(abi/libppg-*.abi)
    shopt -u nullglob
    ((${#baselines[@]} == 1)) || fail "abi/ must hold one baseline (the last release's); it holds ${#baselines[@]}"
    local baseline=${baselines[0]} current=$dir/libppg-$version.abi status=0
    abidw --no-corpus-path --no-show-locs --debug-info-dir target/dist-c/debug \
        --out-file "$current" "target/dist-c/ppg-$version/lib/libppg.so.$version"
    abidiff "$baseline" "$current" >"$dir/abidiff.txt" || status=$?
    local was now
    # (A library without SONAME, as 0.1.0's, has no soname attribute.)
    was=$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$baseline" | head -n 1)
    now=$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$current" | head -n 1)
    echo "abidiff ${baseline#abi/} libppg.so.$version: exit status $status; SONAME '$was' -> '$now'"
    sed -n '/changes summary/p' "$dir/abidiff.txt"
    if ((status & 3)); then
        cat "$dir/abidiff.txt" >&2
        fail "abidiff could not compare (exit status $status)"
    elif ((status & 8)) && [[ $was == "$now" ]]; then
        cat "$dir/abidiff.txt" >&2
        fail "an incompatible ABI change under the same SONAME $now: change the version (docs/c-api.md, Versioning)"
    elif ((status & 8)); then
        echo "an incompatible ABI change, which the new SONAME announces: passes"
    fi
}

checks=(consumer_c_pkgconfig consumer_firmware check_install check_abi)
for check in "${checks[@]}"; do
    say "$check"
    t0=$SECONDS
    "$check" "$work/$check"
    say "$check passed in $((SECONDS - t0)) s"
done
