//! What the front ends' command lines share beyond their own flags: [`parse_f32`] for
//! their single-precision numbers.

/// Parses a number for an `f32` flag (`--lr`, `--initial-weight`): read as an `f64` first,
/// so that a finite number beyond `f32`'s range is said to be so, rather than becoming an
/// infinity that a later check calls "not finite". NaN and the infinities pass, for the
/// flag's own check to name.
///
/// # Errors
/// Not a number, or finite and beyond `f32::MAX` in size.
pub fn parse_f32(text: &str) -> Result<f32, String> {
    let x: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\" is not a number"))?;
    if x.is_finite() && x.abs() > f64::from(f32::MAX) {
        return Err(format!(
            "{text} is out of range for a single-precision float (at most {:e} in size)",
            f32::MAX
        ));
    }
    Ok(x as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_flags_are_checked_in_f64() {
        assert_eq!(parse_f32("0.4"), Ok(0.4));
        assert!(parse_f32("1e308").unwrap_err().contains("out of range"));
        assert!(parse_f32("-1e39").unwrap_err().contains("out of range"));
        assert!(parse_f32("inf").unwrap().is_infinite());
        assert!(parse_f32("lots").is_err());
    }
}
