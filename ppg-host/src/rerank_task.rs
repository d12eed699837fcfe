//! One query of `ppg rerank` read and admitted, before it is queued for a worker: the
//! per-query rules that are not about the command line (its utility column, the
//! request's refusals of its rows with their messages, its engine against the memory
//! budget; its ids against the run file's format are
//! [`RunFormat::check_ids`](crate::trec_run::RunFormat::check_ids)), so that the CLI's run
//! loop hands each query here and to [`Reranker`] without coming back to the CLI in between.

use crate::budget;
use crate::error::{Error, Result};
use crate::quote::quoted;
use crate::rerank_input::InputQuery;
use crate::rerank_query::{Refusal, Reranker, Rows};

/// One query read and checked, with its index in the input.
pub struct Task {
    /// Its index in the input (its seed's).
    pub index: usize,
    /// The query as read (its labels taken into `labels` where they are used).
    pub query: InputQuery,
    /// The utilities, when they are not the scores (`--utility label`): the scores are
    /// not copied a query.
    pub labels: Option<Vec<f64>>,
    /// The bytes of its engine.
    pub engine_bytes: u64,
}

impl Task {
    /// The utilities the query is re-ranked for: its labels or its scores.
    pub fn utility(&self) -> &[f64] {
        self.labels.as_deref().unwrap_or(&self.query.score)
    }
}

/// What the reader thread needs to check a query before it is queued.
pub struct Checks<'a> {
    /// The input as the user named it, for messages.
    pub path: &'a str,
    /// The request.
    pub reranker: &'a Reranker,
    /// Whether the labels are the utility (else the scores).
    pub use_label: bool,
    /// The memory budget in bytes (`--memory`): no query's engine may need more.
    pub memory: u64,
}

impl Checks<'_> {
    /// `query` (the `index`-th of the input, its groups named in `groups`) admitted: bad
    /// input at its line where the request refuses its rows, a failure where its engine
    /// needs more than the whole budget.
    ///
    /// # Errors
    /// [`Error::Input`] at the refused row's line; [`Error::Failed`] for the budget.
    pub fn task(&self, index: usize, mut query: InputQuery, groups: &[String]) -> Result<Task> {
        let c = self;
        let labels = query.label.take().filter(|_| c.use_label);
        let (utility, name) = match &labels {
            Some(l) => (l, "label"),
            None => (&query.score, "score"),
        };
        let rows = Rows {
            score: &query.score,
            utility,
            group: &query.group,
        };
        let sessions = c.reranker.spec().sessions;
        if let Err(refusal) = c.reranker.check(&rows) {
            let group_name = |g: u8| quoted(&groups[usize::from(g)]);
            let (row, message) = match refusal {
                Refusal::Utility { row, why } => (
                    row,
                    format!(
                        "{name} {} {why} (use --utility or shift the scores)",
                        utility[row]
                    ),
                ),
                Refusal::DtrSum { row, group } => (
                    row,
                    format!(
                        "{name} {:e} takes the utility of group {} in query {}, summed over {}, \
                         beyond the largest double: DTR divides exposure by that sum",
                        utility[row],
                        group_name(group),
                        quoted(&query.qid),
                        budget::count(sessions, "session", "sessions"),
                    ),
                ),
                Refusal::BeyondPopulation {
                    row,
                    group,
                    population,
                } => (
                    row,
                    format!(
                        "group {} is group number {} of the input, beyond --awrf-groups {population}",
                        group_name(group),
                        usize::from(group) + 1
                    ),
                ),
            };
            return Err(Error::input(c.path, query.lines[row], message));
        }
        let engine_bytes = c.reranker.engine_bytes(query.len()) as u64;
        if engine_bytes > c.memory {
            // The budget, not the input, is short: exit 1, at the query's line.
            return Err(Error::Failed(format!(
                "{}:{}: query {} has {}: with {} and batch {} its PPG engine needs {}, more \
                 than the memory budget of {} (--memory); split the list or use fewer sessions",
                c.path,
                query.lines[0],
                quoted(&query.qid),
                budget::count(query.len(), "item", "items"),
                budget::count(sessions, "session", "sessions"),
                c.reranker.spec().recipe.train.batch,
                budget::size(engine_bytes, budget::Round::Up),
                budget::size(c.memory, budget::Round::Down)
            )));
        }
        Ok(Task {
            index,
            query,
            labels,
            engine_bytes,
        })
    }
}
