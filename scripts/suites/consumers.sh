#!/usr/bin/env bash
# The release artifacts as an outside project uses them. scripts/dist builds dist/; each
# consumer project of consumers/ is copied to a temporary folder outside the checkout and
# built against the unpacked tarballs alone (C, firmware) or the language's package (the
# wheel, the crate, the Go module, the jar); each re-ranks its queries and must print the
# rankings `ppg rerank` prints for the same rows and seed. Then scripts/install (a fresh
# prefix with another library folder, over an earlier version, a failed install) and the
# ABI of libppg.so against the last release's (abi/, see scripts/abi-baseline).
# needs-apt: build-essential pkg-config cmake qemu-system-arm gcc-arm-none-eabi abigail-tools
# needs-apt: python3-venv golang-go default-jdk-headless libjna-java maven
# needs-apt: libmaven-compiler-plugin-java libmaven-resources-plugin-java
# needs-apt: libmaven-install-plugin-java libexec-maven-plugin-java junit5
# needs-apt: libxapian-dev
#   (Maven builds offline from Debian's /usr/share/maven-repo: the plugins it runs, and
#   junit5 for the junit-bom that the compiler plugin's POM imports)
#   and a JDK 22 or later for the jar's FFM part and the Java 22+ run, which Debian 12
#   does not package: PPG_JDK22, else the first under /usr/lib/jvm (e.g. Temurin 25)
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

bash scripts/dist
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
    copy "$dir" consumers/c-pkgconfig/Makefile consumers/common/rerank_query.c consumers/common/query.h \
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

# The C++ program through CMake: find_package(ppg 0.2 CONFIG) with CMAKE_PREFIX_PATH at the
# unpacked tarball, linked with ppg::ppg_static (no NEEDED libppg), with ppg::ppg (NEEDED
# libppg.so.N; CMake's build tree run path finds it), and with ppg::ppg under
# AddressSanitizer + UndefinedBehaviorSanitizer; -Wall -Wextra -Werror each time.
consumer_cmake_cpp() {
    local dir=$1 variant build needed
    copy "$dir/src" consumers/cmake-cpp/{CMakeLists.txt,rerank_query.cpp} consumers/common/query.h
    for variant in static shared sanitized; do
        build=$dir/$variant
        local options=(-DPPG_TARGET=ppg::ppg)
        [[ $variant == static ]] && options=(-DPPG_TARGET=ppg::ppg_static)
        [[ $variant == sanitized ]] && options+=(-DPPG_SANITIZE=ON)
        cmake -S "$dir/src" -B "$build" -DCMAKE_PREFIX_PATH="$host" -DCMAKE_BUILD_TYPE=Release \
            "${options[@]}" >"$dir/$variant.cmake.log" || { cat "$dir/$variant.cmake.log" >&2; return 1; }
        cmake --build "$build" >>"$dir/$variant.cmake.log" || { cat "$dir/$variant.cmake.log" >&2; return 1; }
        needed=$(readelf -d "$build/rerank_query" | grep NEEDED)
        if [[ $variant == static ]]; then
            ! grep -q 'libppg' <<<"$needed" || fail "C++ ppg::ppg_static: the program needs libppg.so"
        else
            grep -q "\[$soname\]" <<<"$needed" || fail "C++ ppg::ppg ($variant): no NEEDED $soname"
            echo "C++ ppg::ppg ($variant): NEEDED $soname"
        fi
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$build/rerank_query" >"$build/out"
        same_as_cli "C++, CMake, ${options[*]}" "$build/out"
    done
}

# A search engine end to end: Xapian indexes a generated corpus with a group field, and
# each query's top 20 is re-ranked through ppg.hpp (CMake, ppg::ppg). Its first queries'
# rankings must be `ppg rerank`'s; it fails itself when page 2 (a second search and
# re-ranking) does not continue page 1; it prints Xapian's and ppg's time per query.
consumer_xapian() {
    local dir=$1
    copy "$dir/src" consumers/xapian/{CMakeLists.txt,xapian_search.cpp}
    cmake -S "$dir/src" -B "$dir/build" -DCMAKE_PREFIX_PATH="$host" -DCMAKE_BUILD_TYPE=Release \
        >"$dir/cmake.log" || { cat "$dir/cmake.log" >&2; return 1; }
    cmake --build "$dir/build" >>"$dir/cmake.log" || { cat "$dir/cmake.log" >&2; return 1; }
    "$dir/build/xapian_search" >"$dir/out" || fail "the Xapian consumer failed"
    grep -E '^(paging|timing)' "$dir/out"
    [[ $(grep -c '^paging' "$dir/out") -gt 0 ]] || fail "the Xapian consumer checked no paging"
    same_as_cli "C++, Xapian search re-ranked through ppg.hpp" "$dir/out"
}

# The firmware image: the thumbv7em libppg.a linked into a bare Cortex-M4F image, run
# under QEMU (semihosting prints its output and exits with its status).
consumer_firmware() {
    local dir=$1
    copy "$dir" consumers/firmware/Makefile consumers/common/rerank_query.c consumers/common/query.h \
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
    copy "$dir/c" consumers/c-pkgconfig/Makefile consumers/common/rerank_query.c consumers/common/query.h \
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

# The rows the language packages re-rank: several queries (one of a single item, one of
# a single group, tied scores, labels as utility), with the seed and sessions of
# same_as_cli. Each consumer writes `ppg rerank`'s output format; io_blocks turns rows
# and output into the blocks same_as_cli reads.
queries=$root/consumers/common/queries.tsv
io_blocks() {
    sed 's/^/input\t/' "$1"
    sed 's/^/output\t/' "$2"
}

# Python: the wheel into a fresh venv with no Rust on PATH (pip fetches numpy and pandas),
# then rerank_frame. pip refuses it for another Python or platform by its tags.
consumer_python() {
    local dir=$1 wheel venv=$1/venv
    wheel=$(echo "$root/dist/ppg-$version-cp39-abi3-manylinux"*_x86_64.whl)
    [[ -f $wheel ]] || fail "no wheel ppg-$version-cp39-abi3-manylinux*_x86_64.whl in dist/"
    python3 -m venv "$venv"
    local t0=$SECONDS
    env PATH="$venv/bin:/usr/bin:/bin" "$venv/bin/pip" install --quiet --disable-pip-version-check "$wheel"
    echo "pip install $(basename "$wheel") (numpy, pandas from the index): $((SECONDS - t0)) s"
    "$venv/bin/python" "$root/consumers/python/rerank.py" "$queries" 7 2 "$dir/ranked.tsv"
    mkdir -p "$dir/check"
    io_blocks "$queries" "$dir/ranked.tsv" >"$dir/check/out"
    same_as_cli "Python, $(basename "$wheel")" "$dir/check/out"
    local message
    for tags in "--python-version 3.8" "--platform macosx_11_0_arm64"; do
        # shellcheck disable=SC2086 # two words each
        if message=$("$venv/bin/pip" install --dry-run --quiet --no-deps --only-binary=:all: \
            $tags --target "$dir/never" "$wheel" 2>&1); then
            fail "pip accepts the wheel for $tags"
        fi
        grep -q 'is not a supported wheel on this platform' <<<"$message" ||
            fail "pip's refusal for $tags: $message"
    done
    echo "pip refuses it for Python 3.8 and for macOS: \"${message##*ERROR: }\""
}

# Rust: ppg-core from its .crate (what crates.io would serve), for the host and, the
# library alone, for the Cortex-M4F.
consumer_rust() {
    local dir=$1
    mkdir -p "$dir"
    cp -r consumers/rust/. "$dir/"
    tar -C "$dir" -xzf "dist/ppg-core-$version.crate"
    mv "$dir/ppg-core-$version" "$dir/ppg-core"
    (
        cd "$dir"
        export CARGO_TARGET_DIR=$dir/target
        nice -n 10 cargo build --release --quiet
        nice -n 10 cargo build --release --quiet --lib --target thumbv7em-none-eabihf
    )
    "$dir/target/release/ppg-consumer" "$queries" 7 2 >"$dir/ranked.tsv"
    mkdir -p "$dir/check"
    io_blocks "$queries" "$dir/ranked.tsv" >"$dir/check/out"
    same_as_cli "Rust, ppg-core-$version.crate" "$dir/check/out"
    echo "Rust: the consumer's library builds for thumbv7em-none-eabihf"
}

# Go: the module from its tarball by `replace`, libppg from the installed release by
# pkg-config; vet, the module's own tests and the consumer's, then the same vendored;
# without PKG_CONFIG_PATH the build fails in pkg-config, naming ppg.
consumer_go() {
    local dir=$1 prefix=$1/prefix module=$1/ppg-go-$version
    mkdir -p "$dir"
    scripts/install --from "dist/ppg-$version-x86_64-unknown-linux-gnu.tar.gz" --prefix "$prefix" >/dev/null
    tar -C "$dir" -xzf "dist/ppg-go-$version.tar.gz"
    cp -r consumers/go "$dir/consumer"
    (
        cd "$dir/consumer"
        # Offline, this toolchain, and a build cache of its own (go does not notice that
        # the library behind pkg-config changed).
        export GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod GOCACHE=$dir/cache GOPATH=$dir/gopath
        export PKG_CONFIG_PATH=$prefix/lib/pkgconfig LD_LIBRARY_PATH=$prefix/lib
        go mod edit -require="github.com/ppg-search/ppg/go@v$version" \
            -replace="github.com/ppg-search/ppg/go=$module"
        go vet ./... github.com/ppg-search/ppg/go
        go test -count=1 ./... github.com/ppg-search/ppg/go
        go build -o ppg-consumer .
        ./ppg-consumer "$queries" 7 2 >"$dir/ranked.tsv"
        go mod vendor
        GOFLAGS=-mod=vendor go vet ./...
        GOFLAGS=-mod=vendor go test -count=1 ./...
        GOFLAGS=-mod=vendor go build -o ppg-consumer-vendored .
        ./ppg-consumer-vendored "$queries" 7 2 >"$dir/ranked-vendored.tsv"
    )
    cmp -s "$dir/ranked.tsv" "$dir/ranked-vendored.tsv" || fail "Go: the vendored build ranks otherwise"
    mkdir -p "$dir/check"
    io_blocks "$queries" "$dir/ranked.tsv" >"$dir/check/out"
    same_as_cli "Go, ppg-go-$version.tar.gz (and vendored)" "$dir/check/out"

    local message
    if message=$(cd "$dir/consumer" && env -u PKG_CONFIG_PATH GOPROXY=off GOTOOLCHAIN=local \
        GOFLAGS=-mod=vendor GOCACHE="$dir/cache-bare" GOPATH="$dir/gopath" go build -o "$dir/unbuilt" . 2>&1); then
        fail "Go: built with no libppg installed"
    fi
    grep -q "Package ppg was not found in the pkg-config search path" <<<"$message" ||
        fail "Go: without libppg the build failed otherwise: $message"
    ! grep -q 'target/release' <<<"$message" || fail "Go: the failure names a checkout path: $message"
    echo "Go without libppg: \"$(grep -m1 'Package ppg' <<<"$message")\""
}

# Java: the jar and POM into a scratch Maven repository by install:install-file, the
# project built offline (Debian's Maven and JNA) and run with no jna.library.path, once on
# the system's java, Debian's Java 17 (the JNA binding) and once on a Java 22 or later (PPG_JDK22, else the
# first /usr/lib/jvm/* whose java is 22+: the FFM binding, with JNA excluded by the
# project's ffm profile and native access enabled, so no warning); both equal to the
# CLI's. The same jar with its library for another platform fails naming the platform,
# on either binding.
consumer_maven() {
    local dir=$1 repo=$1/m2 jdk22=${PPG_JDK22:-} home feature
    if [[ -z $jdk22 ]]; then
        for home in /usr/lib/jvm/*/; do
            [[ -x $home/bin/java ]] || continue
            feature=$("$home/bin/java" -XshowSettings:properties -version 2>&1 |
                sed -n 's/^ *java.specification.version = \([0-9]*\)$/\1/p')
            if [[ -n $feature ]] && ((feature >= 22)); then jdk22=${home%/}; break; fi
        done
    fi
    [[ -n $jdk22 ]] || fail "Java: no JDK 22 or later for the FFM run (set PPG_JDK22; e.g. Temurin 25)"
    mkdir -p "$dir"
    cp -r consumers/maven "$dir/project"
    (cd "$dir/project" && mvn --quiet -Dmaven.repo.local="$repo" install:install-file \
        -Dfile="$root/dist/ppg-$version.jar" -DpomFile="$root/dist/ppg-$version.pom")
    local java_home want run
    for run in 17:jna "22+:ffm"; do
        java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
        want="binding jna, JNA on the class path: yes"
        [[ $run == 22+* ]] && java_home=$jdk22 want="binding ffm, JNA on the class path: no"
        (
            cd "$dir/project"
            rm -rf target
            env -u JAVA_TOOL_OPTIONS JAVA_HOME="$java_home" mvn --quiet -Dmaven.repo.local="$repo" \
                -Dppg.version="$version" compile exec:exec -Drerank.file="$queries" -Drerank.seed=7 \
                -Drerank.sessions=2 -Drerank.out="$dir/ranked-${run%%:*}.tsv" 2>"$dir/mvn-${run%%:*}.err"
        ) || { cat "$dir/mvn-${run%%:*}.err" >&2; return 1; }
        [[ $(cat "$dir/ranked-${run%%:*}.tsv.binding") == "$want" ]] ||
            fail "Java ${run%%:*}: $(cat "$dir/ranked-${run%%:*}.tsv.binding"), not $want"
        # (Maven itself warns on Java 24+ about sun.misc.Unsafe: not ours.)
        ! grep -qi 'restricted method\|native-access' "$dir/mvn-${run%%:*}.err" ||
            fail "Java ${run%%:*}: the run warned: $(grep -m1 -i 'restricted method' "$dir/mvn-${run%%:*}.err")"
        mkdir -p "$dir/check-${run%%:*}"
        io_blocks "$queries" "$dir/ranked-${run%%:*}.tsv" >"$dir/check-${run%%:*}/out"
        same_as_cli "Java ${run%%:*} ($(basename "$java_home"), $want), ppg-$version.jar (Maven offline, no jna.library.path)" \
            "$dir/check-${run%%:*}/out"
    done

    mkdir -p "$dir/other"
    (cd "$dir/other" && "$jdk22/bin/jar" --extract --file "$root/dist/ppg-$version.jar" && mv linux-x86-64 linux-aarch64 &&
        "$jdk22/bin/jar" --create --file ../other.jar --manifest META-INF/MANIFEST.MF ppg linux-aarch64 META-INF/versions)
    local message java
    for java in java "$jdk22/bin/java"; do
        if message=$("$java" --enable-native-access=ALL-UNNAMED -cp "$dir/other.jar:/usr/share/java/jna.jar:$dir/project/target/classes" \
            consumer.Rerank "$queries" 7 2 "$dir/never.tsv" 2>&1); then
            fail "Java ($java): a jar without linux-x86-64/libppg.so loaded"
        fi
        grep -q 'libppg for platform linux-x86-64 not loaded: the class path holds no linux-x86-64/libppg.so' <<<"$message" ||
            fail "Java ($java): the jar for another platform failed otherwise: $message"
        echo "Java ($java), jar for another platform: \"$(grep -m1 -o 'libppg for platform [^:]*not loaded' <<<"$message")\""
    done
}

checks=(consumer_c_pkgconfig consumer_cmake_cpp consumer_xapian consumer_firmware consumer_python consumer_rust
    consumer_go consumer_maven check_install check_abi)
for check in "${checks[@]}"; do
    say "$check"
    t0=$SECONDS
    "$check" "$work/$check"
    say "$check passed in $((SECONDS - t0)) s"
done
