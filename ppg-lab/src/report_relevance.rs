//! The written report's section on the most relevant fair rankings at several sessions
//! (issue 36): measured by hand (`ppg reproduce` and `ppg rerank --report` on generated
//! files, before and after the count-vector walk), so it is text, kept with the report
//! that `scripts/reproduce` writes so that regenerating docs/results.md keeps it.

/// The section, as docs/results.md shows it.
pub(crate) const MOST_RELEVANT: &str = r#"
## The most relevant fair rankings at several sessions (issue 36)

Among the rankings within the certificate's tolerance (1e-8) of the fairness optimum, the
recipe returns the most relevant it can find, and its relevance certificate bounds the
best (docs/metrics.md, "The most relevant optimum"). At two sessions or more with the
order within groups free (the default), a walk over the fairness bound's count vectors
(`ppg-core/src/recipe/count_tree.rs`; measured below at 20,000 nodes, merged at 20,000 / (sessions + 1), which gives back much of the gain for issue 37's CPU: docs/performance.md) finds the most relevant count vector
of the fair window and, where it ends, proves it. Measured 2026-11-28 on the shared 2-core
VM; before = main at 0eecec3, after = the walk (measured at f93e1f5; the later commits
only make its nodes cheaper, same rankings on graded DTR 4 and 32); grown PPG (`ppg-intra-grow`, the
target) is the same in both. Fairness / NDCG@10, and the mean relevance gap (`ndcg_gap`,
certified queries) with the queries whose bound is exact.

Graded labels (`shapes --protocol graded 2 20 600 7`: 600 queries of 20 items, labels 0-4,
two groups), `ppg reproduce --utility label --method recipe,ppg-intra-grow --runs 1`:

| metric, sessions | grown PPG | recipe before | recipe after | gap before -> after (exact) |
| --- | --- | --- | --- | --- |
| DTR, 1 | 1.0805739 / 0.94036 | 1.0804603 / 0.93749 | 1.0804603 / 0.93749 | 8e-13 -> 8e-13 (600 -> 600) |
| DTR, 4 | 1.0804395 / 0.93529 | 1.0804169 / 0.93866 | 1.0804170 / **0.94569** | 0.0282 -> 0.0193 (19 -> 259) |
| DTR, 32 | 1.0804277 / 0.93239 | 1.0804161 / 0.94142 | 1.0804161 / **0.95591** | 0.0255 -> 0.0110 (28 -> 279) |
| EEL, 1 | 0.0245745 / 0.98864 | 0.0245621 / 0.99841 | 0.0245621 / 0.99841 | 7e-14 -> 7e-14 (600 -> 600) |
| EEL, 4 | 0.0245627 / 0.97605 | 0.0245624 / 1.00000 | 0.0245624 / 1.00000 | 1e-16 -> 1e-16 (600 -> 600) |
| EEL, 32 | 0.0245623 / 0.96702 | 0.0245623 / 1.00000 | 0.0245623 / 1.00000 | 2e-16 -> 2e-16 (600 -> 600) |

Continuous model scores as the utility (`shapes scores 2 20 600 9`), `ppg rerank --report`
(NDCG@10 of the utility; grown PPG is `--intra --no-certify`); fairness is the mean DTR
ratio or EEL:

| metric, sessions | grown PPG | recipe before | recipe after | gap before -> after (exact) |
| --- | --- | --- | --- | --- |
| DTR, 1 | 1.019339 / 0.97618 | 1.018872 / 0.97671 | 1.018872 / 0.97671 | 1e-12 -> 1e-12 (600 -> 600) |
| DTR, 4 | 1.018870 / 0.96317 | 1.018798 / 0.97891 | 1.018798 / **0.98108** | 0.0110 -> 0.0082 (6 -> 129) |
| DTR, 32 | 1.018813 / 0.94556 | 1.018797 / 0.98060 | 1.018797 / **0.98314** | 0.0092 -> 0.0067 (5 -> 160) |
| EEL, 1 | 1.30e-6 / 0.98635 | 1.29e-7 / 0.99624 | 1.29e-7 / 0.99624 | 9e-13 -> 9e-13 (600 -> 600) |
| EEL, 4 | 2.19e-8 / 0.98293 | 3.44e-9 / 0.99877 | 3.35e-9 / 0.99894 | 2.7e-4 -> 1.0e-6 (127 -> 597) |
| EEL, 32 | 1.65e-9 / 0.98210 | 3.27e-9 / 0.99903 | 2.93e-9 / 0.99904 | 1.5e-5 -> 9.1e-6 (232 -> 335) |

Against issue 36's targets: NDCG@10 at least grown PPG's - 0.0005 in every cell but DTR at
one session on graded labels (grown PPG is less fair there, and no ranking within 1e-8 of
the optimum reaches its NDCG: the walk is exact on all 600); fairness within grown PPG's x
(1 + 1e-4) (EEL 1e-3) in every cell but EEL at 32 sessions on scores, where both are below
the tolerance (2.9e-9 against 1.7e-9; main was 3.3e-9). The mean relevance gap is not yet
at the 1e-3 aimed for in the DTR cells at several sessions: the walk proves 43-47 % of the
graded queries and 22-27 % of the scores queries within its budget, the rest keep the
Lagrangian bound or the walk's open branches.

TREC true labels, `ppg reproduce --utility label --method recipe --runs 1` (fairness /
NDCG@10, before -> after; relevance gap and exact queries):

| data, metric, sessions | before | after | gap before -> after (exact) |
| --- | --- | --- | --- |
| 2019 DTR, 4 | 1.30869822 / 0.98097 | 1.30869822 / 0.98101 | 0.0013 -> 0.00005 (215 -> 373) |
| 2019 DTR, 32 | 1.30818258 / 0.97996 | 1.30818259 / 0.98053 | 0.0022 -> 0.0010 (173 -> 359) |
| 2019 EEL, 4 | 2.0014e-7 / 0.99549 | 2.0021e-7 / 0.99583 | 0.0045 -> 3e-13 (396 -> 554) |
| 2019 EEL, 32 | 3.373e-9 / 0.99843 | 2.970e-9 / 0.99984 | 0.0016 -> 1e-13 (496 -> 554) |
| 2020 DTR, 4 | 1.80964317 / 0.89983 | 1.80964317 / 0.90028 | 0.0052 -> 0.0038 (22 -> 100) |
| 2020 DTR, 32 | 1.80964308 / 0.90033 | 1.80964308 / 0.90395 | 0.0047 -> 0.0011 (23 -> 100) |
| 2020 EEL, 4 | 5.176e-9 / 0.99960 | 5.176e-9 / 0.99960 | 0.0004 -> 2e-14 (187 -> 190) |
| 2020 EEL, 32 | 2.005e-9 / 1.00000 | 2.005e-9 / 1.00000 | 4e-16 -> 4e-16 (190 -> 190) |

The one-session cells are unchanged (the walk runs from two sessions). Where the mean
fairness rose (2019 DTR 32: +1e-8; 2019 EEL 4: +7e-11) the rankings stay within the
certificate's tolerance of the optimum: the recipe spends that tolerance on relevance, as
issue 36 asks.
"#;
