//! Input text quoted in an error message: escaped, so that what cannot be seen (a no-break
//! space, a control character, a terminal's escape sequence) shows as a Rust string literal
//! would show it, and cut short, so that a bad field of megabytes is one short line of stderr.

use std::fmt;

/// The characters of a text shown before it is cut.
pub const SHOWN: usize = 60;

/// `text` in double quotes, escaped as [`str::escape_debug`] does; a text longer than
/// [`SHOWN`] characters is cut after them and followed by its length in bytes.
///
/// ```
/// use ppg_host::quote::quoted;
/// assert_eq!(quoted("a\u{a0}").to_string(), r#""a\u{a0}""#);
/// let long = "x".repeat(1000);
/// assert_eq!(quoted(&long).to_string(), format!("\"{}\"... (1000 bytes)", "x".repeat(60)));
/// ```
pub fn quoted(text: &str) -> Quoted<'_> {
    Quoted(text)
}

/// A text quoted for a message (see [`quoted`]); formatting it allocates nothing.
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0;
        let cut = text.char_indices().nth(SHOWN).map(|(end, _)| end);
        write!(
            f,
            "\"{}\"",
            text[..cut.unwrap_or(text.len())].escape_debug()
        )?;
        match cut {
            Some(_) => write!(f, "... ({} bytes)", text.len()),
            None => Ok(()),
        }
    }
}
