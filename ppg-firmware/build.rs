//! Puts memory.x and device.x where the linker finds them (cortex-m-rt's link.x includes
//! both).

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for script in ["memory.x", "device.x"] {
        std::fs::copy(script, out.join(script)).expect("linker script copied");
        println!("cargo:rerun-if-changed={script}");
    }
    println!("cargo:rustc-link-search={}", out.display());
}
