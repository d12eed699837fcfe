//! The library's version as the header states it, and which header versions this library
//! serves (`ppg_check_version`).
//!
//! The constants are literals because cbindgen copies them into `ppg.h` as macros; a test
//! checks them against `Cargo.toml`'s version. (`PPG_VERSION_STRING` is made from them in
//! the header, `cbindgen.toml`'s `after_includes`: cbindgen emits no string constants.)

use crate::status::{ppg_status, Status};

/// The major version of the header (`ppg_check_version`'s first argument).
pub const PPG_VERSION_MAJOR: u32 = 0;
/// The minor version of the header; while the major is 0, a new minor breaks the ABI (and
/// changes the SONAME, `libppg.so.0.MINOR`).
pub const PPG_VERSION_MINOR: u32 = 2;
/// The patch version of the header.
pub const PPG_VERSION_PATCH: u32 = 0;

/// `Ok` when this library serves a program compiled against the header of version
/// `major.minor.patch`: the same major and, while it is 0, the same minor (semver's rule
/// for 0.x, the SONAME's too), and this library no older than the header.
pub(crate) fn check(major: u32, minor: u32, patch: u32) -> Status {
    let library = (PPG_VERSION_MAJOR, PPG_VERSION_MINOR, PPG_VERSION_PATCH);
    let same_line = major == PPG_VERSION_MAJOR && (major != 0 || minor == PPG_VERSION_MINOR);
    if same_line && (major, minor, patch) <= library {
        Ok(())
    } else {
        Err(ppg_status::VersionMismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(s: &str) -> u32 {
        s.parse().expect("a numeric version component")
    }

    #[test]
    fn the_header_constants_are_the_crate_version() {
        assert_eq!(PPG_VERSION_MAJOR, parsed(env!("CARGO_PKG_VERSION_MAJOR")));
        assert_eq!(PPG_VERSION_MINOR, parsed(env!("CARGO_PKG_VERSION_MINOR")));
        assert_eq!(PPG_VERSION_PATCH, parsed(env!("CARGO_PKG_VERSION_PATCH")));
    }

    #[test]
    fn a_header_of_the_same_line_and_no_newer_is_served() {
        let (major, minor, patch) = (PPG_VERSION_MAJOR, PPG_VERSION_MINOR, PPG_VERSION_PATCH);
        assert_eq!(check(major, minor, patch), Ok(()));
        assert_eq!(
            check(major, minor, patch + 1),
            Err(ppg_status::VersionMismatch)
        );
        assert_eq!(check(major + 1, 0, 0), Err(ppg_status::VersionMismatch));
        // While the major is 0, every minor is its own line, older ones included.
        assert_eq!(check(0, minor + 1, 0), Err(ppg_status::VersionMismatch));
        if major == 0 && minor > 0 {
            assert_eq!(check(0, minor - 1, 0), Err(ppg_status::VersionMismatch));
        }
        if patch > 0 {
            assert_eq!(check(major, minor, patch - 1), Ok(()));
        }
    }
}
