# The crates.io packages: dist/ppg-core-V.crate and dist/ppg-ffi-V.crate, exactly what
# `cargo publish` would upload.
#
# `cargo publish --dry-run` of both at once packages them, builds each from its packaged
# sources, and checks everything but the upload. ppg-ffi depends on ppg-core by path and
# version; cargo resolves that version, not yet on crates.io, from a temporary registry
# of the crates packaged in the same run (target/package/tmp-registry), so no order of
# real uploads is needed to check both. `--allow-dirty`: the suites run this on a
# working tree with uncommitted changes too; cargo records that in each .crate
# (.cargo_vcs_info.json, "dirty": true).
set -euo pipefail

nice -n 10 cargo publish --dry-run --quiet --allow-dirty -p ppg-core -p ppg-ffi

for crate in ppg-core ppg-ffi; do
    cp "target/package/$crate-$PPG_VERSION.crate" "$PPG_DIST/.$crate-$PPG_VERSION.crate.tmp"
    mv "$PPG_DIST/.$crate-$PPG_VERSION.crate.tmp" "$PPG_DIST/$crate-$PPG_VERSION.crate"
done
