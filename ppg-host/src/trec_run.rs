//! Run files in the formats the TREC Fair Ranking tracks' evaluators read, so that a
//! query's rankings (one per session) go to the organisers' scripts as they are:
//!
//! - [`RunFormat::Trec2020`]: `qid sample docno rank sim run_id`, tab-separated, no header,
//!   one block per session: what `diazf/expeval`'s `expeval.py -I` reads (TREC 2019 and
//!   2020, expected exposure), the file its `trec/json2runfile.py` makes of a submission.
//!   The sample is `Q0`, `Q1`, ... as that script writes it; the evaluator orders a sample
//!   by `sim` alone, which is therefore `n - rank + 1` (an integer, distinct at every rank:
//!   the script's `1/rank` printed with six decimals repeats beyond about 1,400 items).
//! - [`RunFormat::Trec2022`]: `id page_id` after that header, a ranking's order the line
//!   order: TREC 2022 task 1 (one ranking per topic), read by `wptrec/trecdata.py`'s
//!   `scan_runs` (fair-trec/trec2022-fair-public), which skips a first field `id`.
//! - [`RunFormat::Trec2022Seq`]: `id seq_no page_id`, seq_no the session from 1: TREC 2022
//!   task 2 (a sequence of rankings per topic), read by the same function.
//!
//! The 2022 reader parses topic and page ids as integers, and the 2020 one splits lines on
//! any whitespace: an id either would misread is refused by [`RunFormat::check_id`]
//! before anything of its query is written. ppg's own format (`qid session rank item`) is
//! [`RunFormat::Ppg`].

use crate::error::Error;
use crate::rerank_input::InputQuery;

/// The format of `ppg rerank`'s output (`--run-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunFormat {
    /// ppg's own: header `qid session rank item`, sessions and ranks from 1.
    Ppg,
    /// TREC 2019/2020 (diazf/expeval): `qid sample docno rank sim run_id`, a block per session.
    Trec2020,
    /// TREC 2022 task 1: header `id page_id`, one ranking per topic in line order.
    Trec2022,
    /// TREC 2022 task 2: header `id seq_no page_id`, seq_no the session from 1.
    Trec2022Seq,
}

impl RunFormat {
    /// The header line, where the format has one.
    pub fn header(self) -> Option<&'static str> {
        match self {
            RunFormat::Ppg => Some("qid\tsession\trank\titem"),
            RunFormat::Trec2020 => None,
            RunFormat::Trec2022 => Some("id\tpage_id"),
            RunFormat::Trec2022Seq => Some("id\tseq_no\tpage_id"),
        }
    }

    /// Refuses a session count the format cannot hold (task 1 of 2022 is one ranking).
    pub fn check_sessions(self, sessions: usize) -> Result<(), String> {
        if self == RunFormat::Trec2022 && sessions != 1 {
            return Err(format!(
                "--run-format trec2022 holds one ranking per topic, not {sessions} sessions \
                 (trec2022-seq holds a sequence)"
            ));
        }
        Ok(())
    }

    /// Refuses a session count the format cannot hold ([`RunFormat::check_sessions`]) and
    /// a run id that is not one word (the trec2020 format splits on whitespace): the
    /// messages name `--run-id`.
    pub fn check_run(self, sessions: usize, run_id: &str) -> Result<(), String> {
        self.check_sessions(sessions)?;
        if run_id.is_empty() || run_id.chars().any(char::is_whitespace) {
            return Err(format!(
                "--run-id {run_id:?}: a run id is one word (the trec2020 format splits on \
                 whitespace)"
            ));
        }
        Ok(())
    }

    /// Refuses an id (`what` is its column) that the format's evaluator would misread:
    /// whitespace in `trec2020` (fields are split on it), anything but ASCII digits in the
    /// 2022 formats (ids are parsed as integers). A tab or line end is refused by every
    /// format but `ppg`, whose input already excludes them.
    pub fn check_id(self, what: &str, id: &str) -> Result<(), String> {
        match self {
            RunFormat::Ppg => Ok(()),
            RunFormat::Trec2020 if id.chars().any(char::is_whitespace) => Err(format!(
                "{what} {id:?} holds whitespace, which the trec2020 format (expeval) splits fields on"
            )),
            RunFormat::Trec2020 => Ok(()),
            RunFormat::Trec2022 | RunFormat::Trec2022Seq
                if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) =>
            {
                Err(format!(
                    "{what} {id:?} is not an integer, which the 2022 formats' evaluator \
                     reads ids as"
                ))
            }
            RunFormat::Trec2022 | RunFormat::Trec2022Seq => Ok(()),
        }
    }

    /// The ids of `q` as the format's evaluator reads them ([`RunFormat::check_id`]),
    /// refused at their line of `path`.
    ///
    /// # Errors
    /// [`Error::Input`] naming `--run-format`.
    pub fn check_ids(self, q: &InputQuery, path: &str) -> crate::error::Result<()> {
        if self == RunFormat::Ppg {
            // Its rows take any id the input does.
            return Ok(());
        }
        let refused =
            |line: usize, m: String| Error::input(path, line, format!("{m} (--run-format)"));
        self.check_id("qid", &q.qid)
            .map_err(|m| refused(q.lines[0], m))?;
        for (item, &line) in q.items.iter().zip(&q.lines) {
            self.check_id("item", item).map_err(|m| refused(line, m))?;
        }
        Ok(())
    }

    /// Appends one session's ranking of query `qid` to `out`: `items` in rank order,
    /// `session` from 1. Numbers go through `itoa` and the lines are laid into one buffer,
    /// without the general formatter: this runs for every row of the output, on the worker
    /// that re-ranked the query.
    pub fn write_ranking<'a>(
        self,
        out: &mut Vec<u8>,
        qid: &str,
        session: usize,
        items: impl ExactSizeIterator<Item = &'a str>,
        run_id: &str,
    ) {
        let n = items.len();
        if n == 0 {
            return;
        }
        let (mut numbers, mut rank_text) = (itoa::Buffer::new(), itoa::Buffer::new());
        // What every line of the ranking starts with, written once and copied after.
        let start = out.len();
        out.extend_from_slice(qid.as_bytes());
        out.push(b'\t');
        match self {
            RunFormat::Ppg | RunFormat::Trec2022Seq => {
                out.extend_from_slice(numbers.format(session).as_bytes());
                out.push(b'\t');
            }
            RunFormat::Trec2020 => {
                out.push(b'Q');
                out.extend_from_slice(numbers.format(session.wrapping_sub(1)).as_bytes());
                out.push(b'\t');
            }
            RunFormat::Trec2022 => {}
        }
        let lead = start..out.len();
        for (rank, item) in (1..).zip(items) {
            if rank > 1 {
                out.extend_from_within(lead.clone());
            }
            match self {
                RunFormat::Ppg => {
                    push_rank(out, rank, &mut rank_text);
                    out.push(b'\t');
                    out.extend_from_slice(item.as_bytes());
                    out.push(b'\t');
                }
                RunFormat::Trec2020 => {
                    out.extend_from_slice(item.as_bytes());
                    out.push(b'\t');
                    out.extend_from_slice(rank_text.format(rank).as_bytes());
                    out.push(b'\t');
                    out.extend_from_slice(numbers.format(n + 1 - rank).as_bytes());
                    out.push(b'\t');
                    out.extend_from_slice(run_id.as_bytes());
                    out.push(b'\t');
                }
                RunFormat::Trec2022 | RunFormat::Trec2022Seq => {
                    out.extend_from_slice(item.as_bytes());
                    out.push(b'\t');
                }
            }
            // The last field's tab is the line's end.
            *out.last_mut().expect("a field was written") = b'\n';
        }
    }
}

/// Appends `rank` in decimal: most ranks of a list have one or two digits, pushed as
/// bytes (a copy of itoa's text cost more than the digits).
fn push_rank(out: &mut Vec<u8>, rank: usize, text: &mut itoa::Buffer) {
    match rank {
        0..=9 => out.push(b'0' + rank as u8),
        10..=99 => out.extend_from_slice(&[b'0' + (rank / 10) as u8, b'0' + (rank % 10) as u8]),
        _ => out.extend_from_slice(text.format(rank).as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(format: RunFormat) -> String {
        let mut out = Vec::new();
        for s in 1..=2 {
            let items = if s == 1 {
                ["7", "8", "9"]
            } else {
                ["9", "7", "8"]
            };
            format.write_ranking(&mut out, "12", s, items.into_iter(), "ppg");
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn each_format_writes_a_block_per_session() {
        assert_eq!(
            written(RunFormat::Trec2020),
            "12\tQ0\t7\t1\t3\tppg\n12\tQ0\t8\t2\t2\tppg\n12\tQ0\t9\t3\t1\tppg\n\
             12\tQ1\t9\t1\t3\tppg\n12\tQ1\t7\t2\t2\tppg\n12\tQ1\t8\t3\t1\tppg\n"
        );
        assert_eq!(
            written(RunFormat::Trec2022Seq),
            "12\t1\t7\n12\t1\t8\n12\t1\t9\n12\t2\t9\n12\t2\t7\n12\t2\t8\n"
        );
        assert_eq!(
            written(RunFormat::Ppg),
            "12\t1\t1\t7\n12\t1\t2\t8\n12\t1\t3\t9\n12\t2\t1\t9\n12\t2\t2\t7\n12\t2\t3\t8\n"
        );
    }

    #[test]
    fn ranks_past_one_and_two_digits_and_empty_rankings_are_written_whole() {
        let ids: Vec<String> = (0..120).map(|k| format!("d{k}")).collect();
        let mut out = Vec::new();
        RunFormat::Ppg.write_ranking(&mut out, "q", 3, ids.iter().map(String::as_str), "ppg");
        let want: String = (1..=120)
            .map(|r| format!("q\t3\t{r}\td{}\n", r - 1))
            .collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);
        let mut out = Vec::new();
        RunFormat::Trec2022.write_ranking(
            &mut out,
            "5",
            1,
            ids[..2].iter().map(String::as_str),
            "x",
        );
        RunFormat::Ppg.write_ranking(&mut out, "5", 1, [].into_iter(), "ppg");
        assert_eq!(String::from_utf8(out).unwrap(), "5\td0\n5\td1\n");
    }

    #[test]
    fn ids_the_evaluators_would_misread_are_refused() {
        assert!(RunFormat::Trec2020.check_id("item", "doc 1").is_err());
        assert!(RunFormat::Trec2020.check_id("item", "doc-1").is_ok());
        for f in [RunFormat::Trec2022, RunFormat::Trec2022Seq] {
            assert!(f.check_id("qid", "q1").is_err());
            assert!(f.check_id("qid", "").is_err());
            assert!(f.check_id("qid", "-1").is_err());
            assert!(f.check_id("qid", "0123").is_ok());
        }
        assert!(RunFormat::Ppg.check_id("item", "a b").is_ok());
        assert!(RunFormat::Trec2022.check_sessions(2).is_err());
        assert!(RunFormat::Trec2022.check_sessions(1).is_ok());
        assert!(RunFormat::Trec2022Seq.check_sessions(8).is_ok());
    }
}
