# The Python package: dist/ppg-V-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl,
# one wheel for every CPython >= 3.9 (pyo3's abi3) on x86_64 Linux with glibc >= 2.17.
#
# maturin links the extension with zig (`--zig`) against glibc 2.17's symbols, so the
# wheel is manylinux2014 without a manylinux container; `auditwheel show` then has to
# agree, or the part fails. The tools come from PyPI at pinned versions into their own
# venv, target/dist-venv (made once; a changed pin reinstalls). The build has its own
# target folder, target/wheel-build: zig links it with other flags than the C part's
# cargo-c build of the same crates, and a shared folder would rebuild them each time
# either ran. It is incremental: a second run with nothing changed takes seconds, so the
# Python suite calls this part again rather than trusting a wheel left in dist/.
set -euo pipefail

tools=(maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2)
venv=$PPG_ROOT/target/dist-venv
if [[ $(cat "$venv/.ppg-pip" 2>/dev/null) != "${tools[*]}" ]]; then
    python3 -m venv "$venv" ||
        { echo "30-wheel: \`python3 -m venv\` failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${tools[@]}"
    printf '%s\n' "${tools[*]}" >"$venv/.ppg-pip"
fi
# maturin finds zig as `python -m ziglang` of the python on PATH.
export PATH="$venv/bin:$PATH"

out=$PPG_ROOT/target/wheel
rm -rf "$out"
CARGO_TARGET_DIR=$PPG_ROOT/target/wheel-build nice -n 10 maturin build --quiet --release --strip --zig --compatibility manylinux2014 \
    -m ppg-py/Cargo.toml --out "$out"
wheels=("$out"/ppg-"$PPG_VERSION"-cp39-abi3-*.whl)
[[ -f ${wheels[0]} && ${#wheels[@]} == 1 ]] ||
    { echo "30-wheel: expected one ppg-$PPG_VERSION-cp39-abi3 wheel in $out, found: $(ls "$out")" >&2; exit 1; }
wheel=${wheels[0]}

shown=$(auditwheel show "$wheel")
grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"' <<<"$shown" ||
    { printf '30-wheel: auditwheel does not accept %s as manylinux_2_17:\n%s\n' "$wheel" "$shown" >&2; exit 1; }

name=$(basename "$wheel")
cp "$wheel" "$PPG_DIST/.$name.tmp"
mv "$PPG_DIST/.$name.tmp" "$PPG_DIST/$name"
