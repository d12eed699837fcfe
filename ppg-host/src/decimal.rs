//! Numbers as tables write them ("0.198546", "-3", "12.5"), read without the general parser
//! where its answer is one division: the parser was a tenth of the one-group
//! pass-through's instructions (docs/performance.md, "Reading and writing").
//!
//! A plain decimal of at most 15 digits, at most 22 of them after the point, is an integer
//! `m < 2^53` over `10^e` with `e <= 22`: both are doubles exactly, and IEEE division
//! rounds their quotient correctly, so it is the double nearest the text, the one
//! `str::parse::<f64>` returns (Clinger's fast path, which the standard library takes
//! first too). Anything else (exponents, `inf`, more digits, a point at an end) goes to
//! `str::parse`.

use std::num::ParseFloatError;

/// `text` as `str::parse::<f64>` reads it.
///
/// # Errors
/// As `str::parse::<f64>`.
pub(crate) fn parse(text: &str) -> Result<f64, ParseFloatError> {
    plain(text.as_bytes()).map_or_else(|| text.parse(), Ok)
}

/// Powers of ten that are doubles exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The most digits of a plain decimal: below 2^53 whatever they are.
const DIGITS: usize = 15;

/// A plain decimal's value, `None` for any other text (which [`parse`] gives to the
/// standard parser). The digits before the point, then those after it, each in a loop of
/// its own: the number of a row is read on the reader's thread, for every row.
#[inline]
pub(crate) fn plain(text: &[u8]) -> Option<f64> {
    let (negative, digits) = match text.first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    // Wrapping: a text of more digits than DIGITS is refused below, whatever `m` became.
    let mut m = 0u64;
    let mut k = 0;
    while let Some(d) = digits.get(k).and_then(|c| digit(*c)) {
        m = m.wrapping_mul(10).wrapping_add(d);
        k += 1;
    }
    let whole = k;
    let after = if k == digits.len() {
        0
    } else {
        // A point with digits on both sides, and nothing after them.
        if digits[k] != b'.' || whole == 0 {
            return None;
        }
        k += 1;
        while let Some(d) = digits.get(k).and_then(|c| digit(*c)) {
            m = m.wrapping_mul(10).wrapping_add(d);
            k += 1;
        }
        if k != digits.len() || k == whole + 1 {
            return None;
        }
        k - whole - 1
    };
    if whole == 0 || whole + after > DIGITS {
        return None;
    }
    let value = m as f64 / POW10[after];
    Some(if negative { -value } else { value })
}

/// The value of an ASCII digit.
#[inline]
fn digit(c: u8) -> Option<u64> {
    let d = c.wrapping_sub(b'0');
    (d < 10).then_some(u64::from(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let (got, want) = (parse(text), text.parse::<f64>());
        match (got, want) {
            (Ok(g), Ok(w)) => assert_eq!(g.to_bits(), w.to_bits(), "{text:?}"),
            (g, w) => assert_eq!(g.is_err(), w.is_err(), "{text:?}: {g:?} {w:?}"),
        }
    }

    #[test]
    fn plain_decimals_and_the_rest_read_as_the_standard_parser_reads_them() {
        for text in [
            "0",
            "-0",
            "+0",
            "-0.0",
            "1",
            "0.198546",
            "12.5",
            "-3",
            "007",
            "1.",
            ".5",
            "-",
            "+",
            ".",
            "",
            "1..2",
            "1.2.3",
            "1e5",
            "inf",
            "NaN",
            "-.5",
            "0.1",
            "0.3",
            "123456789012345",
            "1234567890123456",
            "0.0000000000000000000001",
            "0.00000000000000000000001",
            "9007199254740993",
            "1 ",
            " 1",
            "0x10",
            "1_0",
        ] {
            same(text);
        }
        // Random plain decimals of every length and point (a fixed xorshift).
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 20 + 1) as usize;
            let point = (x >> 8) as usize % (digits + 1);
            let mut text = String::new();
            if x >> 40 & 1 == 1 {
                text.push('-');
            }
            let mut y = x;
            for k in 0..digits {
                if k == point && k > 0 {
                    text.push('.');
                }
                text.push(char::from(b'0' + (y % 10) as u8));
                y = (y / 10) ^ x.rotate_left(k as u32);
            }
            same(&text);
        }
    }
}
