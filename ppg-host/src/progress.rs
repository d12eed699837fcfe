//! Progress on stderr (indicatif): a bar on a terminal; in a log (stderr not a terminal) a
//! plain line every [`LINE_EVERY`], so that batch jobs show they are alive without filling
//! their logs.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

/// How often a log gets a progress line.
pub const LINE_EVERY: Duration = Duration::from_secs(30);

/// Where progress goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// A bar when stderr is a terminal, else a plain line every 30 s.
    Auto,
    /// A plain line every 30 s, even on a terminal.
    Lines,
    /// Nothing.
    Never,
}

/// A progress display over `total` steps (`None`: unknown, as when streaming), counting
/// `unit`s.
pub fn new(how: Show, label: &str, total: Option<u64>, unit: &str) -> ProgressBar {
    let terminal = std::io::stderr().is_terminal();
    let target = match how {
        Show::Never => return ProgressBar::hidden(),
        Show::Auto if terminal => ProgressDrawTarget::stderr(),
        _ => ProgressDrawTarget::term_like_with_hz(Box::new(Lines::default()), 1),
    };
    let template = match total {
        Some(_) => format!("{label} [{{bar:30}}] {{pos}}/{{len}} {unit} {{elapsed}}, {{eta}} left"),
        None => format!("{label}: {{pos}} {unit} in {{elapsed}}"),
    };
    let bar = match total {
        Some(n) => ProgressBar::with_draw_target(Some(n), target),
        None => ProgressBar::with_draw_target(None, target),
    };
    bar.set_style(
        ProgressStyle::with_template(&template)
            .expect("a valid template")
            .progress_chars("#>-"),
    );
    bar
}

/// A terminal stand-in that writes indicatif's drawn line as a plain line on stderr, at
/// most once per [`LINE_EVERY`] (cursor moves and clearing are ignored: a log has none).
#[derive(Debug)]
struct Lines {
    last: Mutex<Instant>,
}

impl Default for Lines {
    fn default() -> Self {
        Lines {
            last: Mutex::new(Instant::now()),
        }
    }
}

impl TermLike for Lines {
    fn width(&self) -> u16 {
        100
    }

    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(s)
    }

    fn write_str(&self, s: &str) -> std::io::Result<()> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if s.trim().is_empty() || last.elapsed() < LINE_EVERY {
            return Ok(());
        }
        *last = Instant::now();
        writeln!(std::io::stderr(), "{}", s.trim_end())
    }

    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }

    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}
