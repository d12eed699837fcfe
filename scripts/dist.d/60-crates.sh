# The crates.io packages: dist/ppg-core-V.crate and dist/ppg-ffi-V.crate, exactly what
# `cargo publish` would upload.
#
# `cargo package` of both at once packages them into target/package/ and builds each from
# its packaged sources; `cargo publish --dry-run` then checks everything but the upload
# (without building them again). ppg-ffi depends on ppg-core by path and version; cargo
# resolves that version, not yet on crates.io, from a temporary registry of the crates
# packaged in the same run (target/package/tmp-registry), so both are checked before
# either is uploaded. `--allow-dirty`: the suites run this on a
# working tree with uncommitted changes too; cargo records that in each .crate
# (.cargo_vcs_info.json, "dirty": true).
set -euo pipefail

rm -f target/package/ppg-{core,ffi}-"$PPG_VERSION".crate
# Cargo unpacks the temporary registry's crates under $CARGO_HOME/registry/src/<hash of the
# registry's path>/ and keeps them: a second run at the same version would build ppg-ffi
# against the first run's ppg-core sources (seen here: a method made public since was still
# private). Those folders hold only crates of that temporary registry, ours.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
rm -rf "$cargo_home"/registry/src/-*/ppg-{core,ffi}-"$PPG_VERSION"
nice -n 10 cargo package --quiet --allow-dirty -p ppg-core -p ppg-ffi
nice -n 10 cargo publish --dry-run --quiet --no-verify --allow-dirty -p ppg-core -p ppg-ffi

for crate in ppg-core ppg-ffi; do
    cp "target/package/$crate-$PPG_VERSION.crate" "$PPG_DIST/.$crate-$PPG_VERSION.crate.tmp"
    mv "$PPG_DIST/.$crate-$PPG_VERSION.crate.tmp" "$PPG_DIST/$crate-$PPG_VERSION.crate"
done
