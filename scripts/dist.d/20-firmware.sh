# The firmware library for Cortex-M4F/M7 (thumbv7em-none-eabihf):
# dist/ppg-V-thumbv7em-none-eabihf.tar.gz holding ppg-V/include/ppg.h and ppg-V/lib/libppg.a,
# built without std (no allocator, no ppg_engine_new/ppg_engine_free: an engine lives in
# caller memory) and without debug info. Link it with -lgcc, as c-examples/firmware does.
set -euo pipefail
: "${PPG_VERSION:?run through scripts/dist}" "${PPG_DIST:?}" "${PPG_ROOT:?}"
cd "$PPG_ROOT"

triple=thumbv7em-none-eabihf
command -v arm-none-eabi-strip >/dev/null || {
    echo "20-firmware: arm-none-eabi-strip not found (Debian: binutils-arm-none-eabi)" >&2
    exit 1
}
cargo rustc --release --locked -p ppg-ffi --target "$triple" --no-default-features \
    --crate-type staticlib

stage=$PPG_ROOT/target/dist-firmware
rm -rf "$stage"
top=$stage/ppg-$PPG_VERSION
mkdir -p "$top/include" "$top/lib"
install -m 644 include/ppg.h "$top/include/ppg.h"
install -m 644 "target/$triple/release/libppg.a" "$top/lib/libppg.a"
arm-none-eabi-strip --strip-debug "$top/lib/libppg.a"

tarball=$PPG_DIST/ppg-$PPG_VERSION-$triple.tar.gz
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name \
    -czf "$tarball.part" "ppg-$PPG_VERSION"
mv -f "$tarball.part" "$tarball"
echo "20-firmware: $tarball"
(cd "$stage" && find "ppg-$PPG_VERSION" -type f -printf '  %p %s B\n' | sort)
