//! One memory budget for the whole process: every engine takes its bytes from it before it
//! allocates and gives them back when its query is done, so that threads wait rather than
//! exceed the budget together.

use std::path::Path;
use std::sync::{Condvar, Mutex};

/// The memory this process can have: the smaller of physical memory and its cgroup's
/// limit, with the figures it comes from in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    /// Bytes, `None` when neither figure could be read.
    pub bytes: Option<u64>,
    /// Where the figure comes from: "23.4 GiB of physical memory, cgroup limit 8.0 GiB".
    pub words: String,
}

impl Limit {
    /// This machine's: `/proc/meminfo` and the cgroup limits over this process (cgroup v2's
    /// `memory.max`, v1's `memory.limit_in_bytes`, of its cgroup and every one above it).
    pub fn here() -> Self {
        let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        Self::from(
            physical_bytes(),
            cgroup_bytes(Path::new("/sys/fs/cgroup"), &cgroups),
        )
    }

    fn from(physical: Option<u64>, cgroup: Option<u64>) -> Self {
        let show = |b: Option<u64>| b.map_or("unknown".to_owned(), gib);
        Limit {
            bytes: match (physical, cgroup) {
                (Some(p), Some(c)) => Some(p.min(c)),
                (p, c) => p.or(c),
            },
            words: format!(
                "{} of physical memory, cgroup limit {}",
                show(physical),
                cgroup.map_or("none".to_owned(), gib)
            ),
        }
    }

    /// The default budget: a quarter of the limit (the machine is usually shared), or
    /// 2 GiB where no limit can be read.
    pub fn default_budget(&self) -> u64 {
        self.bytes.map_or(2 << 30, |b| b / 4)
    }

    /// Refuses a budget above the limit: engines would fail to allocate, or the kernel
    /// would kill the process, long after the work started.
    ///
    /// # Errors
    /// The message names both figures.
    pub fn check(&self, memory: u64) -> Result<(), String> {
        match self.bytes {
            Some(limit) if memory > limit => Err(format!(
                "--memory {} is more than this process can have ({}): give at most {}",
                gib(memory),
                self.words,
                gib(limit)
            )),
            _ => Ok(()),
        }
    }
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// Physical memory, from `/proc/meminfo` (Linux); `None` elsewhere.
fn physical_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The smallest memory limit of the cgroups over a process whose `/proc/self/cgroup` is
/// `cgroups`, under the hierarchy mounted at `root`: cgroup v2 (`0::/path`, `memory.max`,
/// "max" for none) or v1 (the `memory` controller's `memory/path`,
/// `memory.limit_in_bytes`, a figure near 2^63 for none). Each folder from the process's
/// cgroup up to `root` counts: a parent's limit binds its children.
fn cgroup_bytes(root: &Path, cgroups: &str) -> Option<u64> {
    let mut smallest: Option<u64> = None;
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        // v2 alone is mounted at the root; beside v1 ("hybrid"), at `unified`.
        let (bases, file) = if id == "0" && controllers.is_empty() {
            (vec![root.to_path_buf(), root.join("unified")], "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (vec![root.join("memory")], "memory.limit_in_bytes")
        } else {
            continue;
        };
        for base in bases {
            let mut dir = base.join(path.trim_start_matches('/'));
            loop {
                let value = std::fs::read_to_string(dir.join(file)).ok();
                if let Some(bytes) = value.and_then(|v| v.trim().parse::<u64>().ok()) {
                    if bytes < 1 << 62 {
                        smallest = Some(smallest.map_or(bytes, |s| s.min(bytes)));
                    }
                }
                if dir == base || !dir.pop() {
                    break;
                }
            }
        }
    }
    smallest
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

/// The longest line `ppg rerank` reads under a budget of `memory` bytes: 1/64 of it, and
/// at least 1 MiB (a header and rows of ordinary ids whatever the budget). A line is held
/// whole while it is read, up to about four times over (the line reader's buffer as it
/// doubles, the fields, the ids kept), so a line takes a sixteenth of the budget at most.
pub fn longest_line(memory: u64) -> usize {
    usize::try_from(memory / 64)
        .unwrap_or(usize::MAX)
        .max(1 << 20)
}

/// Which way [`size`] rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// Up: a need.
    Up,
    /// Down: a budget.
    Down,
}

/// `bytes` for a message, in the largest binary unit it reaches, to one decimal (none when
/// exact): a need rounded up and a budget rounded down, so that a need above a budget is
/// always shown above it ("needs 1.1 MiB, more than the budget of 1 MiB", never "1 MiB,
/// more than 0 MiB").
pub fn size(bytes: u64, round: Round) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let k = (1..UNITS.len())
        .rev()
        .find(|&k| bytes >> (10 * k) > 0)
        .unwrap_or(0);
    if k == 0 {
        return format!("{bytes} {}", if bytes == 1 { "byte" } else { "bytes" });
    }
    let unit = 1u128 << (10 * k);
    let tenths = u128::from(bytes) * 10;
    let tenths = match round {
        Round::Up => tenths.div_ceil(unit),
        Round::Down => tenths / unit,
    };
    if tenths % 10 == 0 {
        format!("{} {}", tenths / 10, UNITS[k])
    } else {
        format!("{}.{} {}", tenths / 10, tenths % 10, UNITS[k])
    }
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
    fn cgroup_limits_of_v2_and_v1_and_their_parents() {
        let root = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let p = root.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        // v2: the process's cgroup has none, its parent 8 GiB, the one above 4 GiB.
        write("a/b/c/memory.max", "max\n");
        write("a/b/memory.max", "8589934592\n");
        write("a/memory.max", "4294967296\n");
        assert_eq!(cgroup_bytes(root.path(), "0::/a/b/c\n"), Some(4 << 30));
        assert_eq!(cgroup_bytes(root.path(), "0::/x\n"), None);
        // v1: "unlimited" is a figure near 2^63; a real limit below it counts.
        write("memory/d/memory.limit_in_bytes", "9223372036854771712\n");
        write("memory/d/e/memory.limit_in_bytes", "1073741824\n");
        let v1 = "12:cpu,cpuacct:/d/e\n4:memory:/d/e\n";
        assert_eq!(cgroup_bytes(root.path(), v1), Some(1 << 30));
        assert_eq!(cgroup_bytes(root.path(), "4:memory:/d\n"), None);
    }

    #[test]
    fn the_limit_is_the_smaller_figure_and_the_default_a_quarter_of_it() {
        let limit = Limit::from(Some(24 << 30), Some(8 << 30));
        assert_eq!(limit.default_budget(), 2 << 30);
        assert!(limit.check(8 << 30).is_ok());
        let e = limit.check(1 << 40).unwrap_err();
        assert!(e.contains("--memory 1024.0 GiB"), "{e}");
        assert!(
            e.contains("24.0 GiB of physical memory, cgroup limit 8.0 GiB"),
            "{e}"
        );
        assert_eq!(Limit::from(None, None).default_budget(), 2 << 30);
        assert!(Limit::from(None, None).check(u64::MAX).is_ok());
    }

    #[test]
    fn sizes_for_messages_keep_a_need_above_its_budget() {
        assert_eq!(size(1, Round::Down), "1 byte");
        assert_eq!(size(1000, Round::Up), "1000 bytes");
        assert_eq!(size(1 << 20, Round::Down), "1 MiB");
        assert_eq!(size((1 << 20) + 1, Round::Up), "1.1 MiB");
        assert_eq!(size((1 << 21) - 1, Round::Down), "1.9 MiB");
        assert_eq!(size(3 << 30, Round::Up), "3 GiB");
        for (need, budget) in [(1_048_577, 1_048_576), (1_100_000, 1_099_999), (2048, 2047)] {
            assert_ne!(size(need, Round::Up), size(budget, Round::Down));
        }
    }

    #[test]
    fn the_longest_line_is_a_64th_of_the_budget_and_at_least_1_mib() {
        assert_eq!(longest_line(1), 1 << 20);
        assert_eq!(longest_line(1 << 30), 16 << 20);
    }

    #[test]
    fn grammar() {
        assert_eq!(count(1, "session", "sessions"), "1 session");
        assert_eq!(count(3, "query", "queries"), "3 queries");
    }
}
