//! One memory budget for the whole process: every engine takes its bytes from it before it
//! allocates and gives them back when its query is done, so that threads wait rather than
//! exceed the budget together.

use std::sync::{Condvar, Mutex};

/// The default budget: a quarter of physical memory (the machine is usually shared), or
/// 2 GiB where physical memory cannot be read.
pub fn default_bytes() -> u64 {
    physical_bytes().map_or(2 << 30, |b| b / 4)
}

/// Physical memory, from `/proc/meminfo` (Linux); `None` elsewhere.
fn physical_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Parses a size for `--memory`: a number of bytes with an optional binary suffix
/// (`K`, `M`, `G`, `T`; `KiB`... and `KB`... read the same).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("\"{text}\" is not a size (e.g. 512M, 4G)"))?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return Err(format!("\"{text}\": unknown unit (use K, M, G or T)")),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("\"{text}\" is not a usable size"));
    }
    Ok(bytes as u64)
}

/// Bytes shared by the threads of the process.
pub struct Budget {
    total: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// Bytes taken from a [`Budget`], given back on drop.
pub struct Permit<'a> {
    budget: &'a Budget,
    bytes: u64,
}

impl Budget {
    /// A budget of `total` bytes.
    pub fn new(total: u64) -> Self {
        Budget {
            total,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Takes `bytes`, waiting until other threads give enough back. The caller checks
    /// first that `bytes <= total` (else this would wait for ever).
    pub fn take(&self, bytes: u64) -> Permit<'_> {
        debug_assert!(bytes <= self.total);
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        while *used + bytes > self.total {
            used = self.freed.wait(used).unwrap_or_else(|p| p.into_inner());
        }
        *used += bytes;
        Permit {
            budget: self,
            bytes,
        }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock().unwrap_or_else(|p| p.into_inner());
        *used -= self.bytes;
        self.budget.freed.notify_all();
    }
}

/// `n` and the noun, singular or plural: "1 session", "2 sessions".
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn threads_wait_for_the_budget() {
        let budget = Budget::new(10);
        let peak = Mutex::new(0u64);
        let live = Mutex::new(0u64);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..50 {
                        let _p = budget.take(6);
                        let now = {
                            let mut l = live.lock().unwrap();
                            *l += 6;
                            *l
                        };
                        let mut p = peak.lock().unwrap();
                        *p = (*p).max(now);
                        drop(p);
                        *live.lock().unwrap() -= 6;
                    }
                });
            }
        });
        assert_eq!(*peak.lock().unwrap(), 6, "two takes of 6 never fit in 10");
    }

    #[test]
    fn grammar() {
        assert_eq!(count(1, "session", "sessions"), "1 session");
        assert_eq!(count(3, "query", "queries"), "3 queries");
    }
}
