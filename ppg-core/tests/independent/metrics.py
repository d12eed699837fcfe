#!/usr/bin/env python3
"""A second, plain implementation of expected exposure and AWRF, for tests/trec_metrics.rs.

Written from the published definitions, in the evaluators' own terms: expected exposure as
diazf/expeval computes it for `expeval.py [-g] -c` (dicts keyed by document, the closed-form
targets `(q^b - q^(b+m)) / (m (1 - q))`, the cascade's `relret` counting every judged
document, the bounds of individual.py/group.py, EE-L as `EE-D - 2 EE-R + |t|^2`); AWRF as
TREC Fair Ranking 2021's metrics.py computes it (attention 1/log2(max(rank, 2)), Jensen-
Shannon divergence in nats, binary NDCG). Nothing here is shared with the Rust code.

stdin: one query per line: `qid<TAB>utilities<TAB>groups<TAB>rankings`, comma-separated,
rankings as `;`-separated sessions of item ids. stdout: `qid<TAB>name<TAB>value` lines.
"""
import math
import sys

P = U = 0.5


def gp(p, n):
    return (1.0 - p ** n) / (1.0 - p) if p != 1.0 else float(n)


def l2(x):
    return sum(v * v for v in x.values())


def dot(x, y):
    return sum(v * y[k] for k, v in x.items() if k in y)


def targets(qrels, model):
    levels = {}
    for rel in qrels.values():
        levels[rel] = levels.get(rel, 0) + 1
    b, per_level = 0, {}
    q = P if model == "rbp" else P * (1.0 - U)
    for grade in sorted(levels, reverse=True):
        m = levels[grade]
        per_level[grade] = (q ** b - q ** (b + m)) / (m * (1.0 - q))
        b += m
    return {d: per_level[r] for d, r in qrels.items()}, len(levels)


def treatment(rankings, qrels, model):
    exp = {}
    for ranking in rankings:
        relret = 0
        for i, d in enumerate(ranking):
            e = P ** i if model == "rbp" else P ** i * (1.0 - U) ** relret
            exp[d] = exp.get(d, 0.0) + e / len(rankings)
            if d in qrels:  # complete judgements: every listed item is judged
                relret += 1
    return exp


def individual(qrels, rankings, model):
    t, nlevels = targets(qrels, model)
    n = len(qrels)
    pl = P if model == "rbp" else P * U  # the evaluator's lower-bound rate
    asc = sorted(t.values())
    disp = (gp(pl, n) ** 2 / n, gp(P * P, n))
    rel = (sum(pl ** i * v for i, v in enumerate(asc)), l2(t))
    if nlevels <= 1:
        rel = (0.0, 0.0)
    diff_ub = sum((pl ** i - v) ** 2 for i, v in enumerate(asc))
    return t, treatment(rankings, qrels, model), disp, rel, diff_ub


def group(qrels, groups, rankings, model):
    t_item, _ = targets(qrels, model)
    e_item = treatment(rankings, qrels, model)

    def agg(x):
        out = {}
        for d, g in groups.items():
            if qrels[d] > 0:
                out[g] = out.get(g, 0.0) + x.get(d, 0.0)
        return out

    t, e = agg(t_item), agg(e_item)
    r = sum(1 for v in qrels.values() if v > 0)
    k = len(t)
    mass = gp(P, r)
    disp = (0.0, mass * mass * k if k > 1 else 0.0)
    rel = (0.0, sum(v * mass for v in t.values()))
    diff_ub = max(l2(t), sum((mass - v) ** 2 for v in t.values()))
    return t, e, disp, rel, diff_ub


def ee(t, e, disp, rel, diff_ub):
    d, r = l2(e), dot(t, e)
    loss = d - 2.0 * r + l2(t)
    nd = 0.0 if disp[0] == disp[1] else (d - disp[0]) / (disp[1] - disp[0])
    nr = 1.0 if rel[0] == rel[1] else (r - rel[0]) / (rel[1] - rel[0])
    nl = 0.0 if diff_ub == 0 else loss / diff_ub
    return {"loss": loss, "disparity": d, "relevance": r,
            "loss_n": nl, "disparity_n": nd, "relevance_n": nr}


def awrf(utility, groups, rankings, ngroups):
    relevant = [d for d in range(len(utility)) if utility[d] > 0]
    if not relevant:
        return None
    rel_dist = [sum(1 for d in relevant if groups[d] == g) / len(relevant)
                for g in range(ngroups)]
    target = [(x + 1.0 / ngroups) * 0.5 for x in rel_dist]
    out = {"awrf": 0.0, "ndcg": 0.0, "product": 0.0}
    for ranking in rankings:
        disc = [1.0 / math.log2(max(r, 2)) for r in range(1, len(ranking) + 1)]
        dist = [0.0] * ngroups
        for pos, d in enumerate(ranking):
            dist[groups[d]] += disc[pos]
        dist = [x / sum(disc) for x in dist]
        js = 0.0
        for p, q in zip(dist, target):
            m = (p + q) / 2
            js += (p * math.log(p / m) if p > 0 else 0.0) + (q * math.log(q / m) if q > 0 else 0.0)
        a = 1.0 - js / 2
        dcg = sum(disc[pos] for pos, d in enumerate(ranking) if utility[d] > 0)
        ndcg = dcg / sum(disc[:len(relevant)])
        out["awrf"] += a / len(rankings)
        out["ndcg"] += ndcg / len(rankings)
        out["product"] += a * ndcg / len(rankings)
    return out


def main():
    for line in sys.stdin:
        qid, util, grp, runs = line.rstrip("\n").split("\t")
        utility = [float(x) for x in util.split(",")]
        groups = [int(x) for x in grp.split(",")]
        rankings = [[int(x) for x in run.split(",")] for run in runs.split(";")]
        qrels = dict(enumerate(utility))
        g = dict(enumerate(groups))
        rows = {}
        for model in ("gerr", "rbp"):
            for name, v in ee(*individual(qrels, rankings, model)).items():
                rows[f"item_{model}_{name}"] = v
            if any(u > 0 for u in utility):
                for name, v in ee(*group(qrels, g, rankings, model)).items():
                    rows[f"group_{model}_{name}"] = v
        a = awrf(utility, groups, rankings, 2)
        if a is not None:
            rows.update({f"awrf_{k}": v for k, v in a.items()})
        for name, v in rows.items():
            print(f"{qid}\t{name}\t{v!r}")


if __name__ == "__main__":
    main()
