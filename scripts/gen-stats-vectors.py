#!/usr/bin/python3
"""Writes tests/data/stats_vectors.json: reference values for harness/compare,
computed outside the project with SciPy (Debian 12: apt-get install python3-scipy).

  scripts/gen-stats-vectors.py            # rewrite the file
  scripts/gen-stats-vectors.py --check    # fail if the file is out of date

Mann-Whitney U: scipy.stats.mannwhitneyu(x, y, use_continuity=True,
alternative="two-sided", method="asymptotic") -> U of x and the p-value;
with it the Hodges-Lehmann shift (lower median of all y_j - x_i, numpy).
Noise band: two-sided p of Student's t for a new value against a history,
t = (v - mean) / (sd * sqrt(1 + 1/n)), n - 1 degrees of freedom.
Welch's t: scipy.stats.ttest_ind(x, y, equal_var=False).
Paired rounds (issue 28): per-round ratios candidate / reference; on their
logs scipy.stats.ttest_rel(log candidate, log reference) -> t, p and its
confidence_interval(0.95), and scipy.stats.wilcoxon(log ratios) -> p (exact
up to 50 rounds without zeros or ties, else the normal approximation); the
Hodges-Lehmann estimate (median of the Walsh averages) with its 95 % signed-rank
interval from SciPy's exact null distribution, and the rounds beyond 4 x
1.4826 x MAD from the median.
A night against N baseline nights on the log scale: t = (ln x - mean ln v) /
(sd ln v * sqrt(1/N + 1)), N - 1 degrees of freedom, the 95 % interval from
scipy.stats.t.ppf, and the smallest detectable change
(t.ppf(0.975, df) + t.ppf(0.8, df)) * se.
Holm and Benjamini-Hochberg adjusted p-values come from a direct O(m^2)
transcription of the definitions (SciPy 1.10 has neither), independent of
the C++ code's sort-and-sweep.
"""
import json
import math
import pathlib
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.stats._morestats import _get_wilcoxon_distr  # the exact signed-rank null distribution

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "stats_vectors.json"


def mwu_cases(rng):
    cases = []

    def add(name, x, y):
        x = [float(v) for v in x]
        y = [float(v) for v in y]
        r = stats.mannwhitneyu(x, y, use_continuity=True, alternative="two-sided", method="asymptotic")
        case = {"name": name, "x": x, "y": y, "u": float(r.statistic), "p": float(r.pvalue)}
        if len(x) * len(y) <= 1_000_000:
            # Hodges-Lehmann shift as the lower median of all y_j - x_i.
            d = np.sort(np.subtract.outer(np.asarray(y), np.asarray(x)).ravel())
            case["hl_lower"] = float(d[(len(d) + 1) // 2 - 1])
        cases.append(case)

    add("textbook small with ties", [1, 2, 2, 3, 4, 5, 5, 5], [3, 4, 4, 6, 7, 8, 9, 9, 10])
    add("identical samples", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    add("complete separation", list(range(1, 21)), list(range(21, 41)))
    add("heavy ties (integer ms)", rng.integers(10, 14, 60), rng.integers(10, 15, 45))
    add("lognormal same n=200", rng.lognormal(0, 0.2, 200), rng.lognormal(0, 0.2, 200))
    add("lognormal 5% shift n=300", rng.lognormal(0, 0.2, 300), 1.05 * rng.lognormal(0, 0.2, 300))
    add("unequal sizes 12 vs 500", rng.normal(5, 1, 12), rng.normal(5.3, 1, 500))
    add("latency-like seconds", 1e-3 * rng.gamma(9, 0.11, 150), 1e-3 * rng.gamma(9, 0.12, 160))
    add("one side constant", [2.0] * 15, rng.normal(2, 0.5, 15))
    add("large n=1500", rng.lognormal(0, 0.3, 1500), rng.lognormal(0.03, 0.3, 1500))
    return cases


def band_cases(rng):
    cases = []

    def add(name, history, value):
        h = np.asarray(history, dtype=float)
        n = len(h)
        t = (value - h.mean()) / (h.std(ddof=1) * math.sqrt(1 + 1 / n))
        p = 2 * stats.t.sf(abs(t), n - 1)
        cases.append({"name": name, "history": [float(v) for v in h], "value": float(value),
                      "t": float(t), "p": float(p)})

    add("five runs, value inside", [10.1, 9.8, 10.3, 10.0, 9.9], 10.2)
    add("five runs, value outside", [10.1, 9.8, 10.3, 10.0, 9.9], 11.5)
    add("twenty noisy runs", rng.normal(48e9, 1.5e9, 20), 44e9)
    add("twelve runs, lower", rng.normal(0.71, 0.02, 12), 0.62)
    return cases


def welch_cases(rng):
    cases = []

    def add(name, x, y):
        x = [float(v) for v in x]
        y = [float(v) for v in y]
        r = stats.ttest_ind(x, y, equal_var=False)
        cases.append({"name": name, "x": x, "y": y, "p": float(r.pvalue)})

    add("equal spread", rng.normal(10, 1, 40), rng.normal(10.5, 1, 50))
    add("unequal spread and size", rng.normal(1e-3, 1e-4, 12), rng.normal(1.1e-3, 4e-4, 300))
    add("lognormal latencies", rng.lognormal(0, 0.5, 200), rng.lognormal(0.05, 0.5, 180))
    return cases


def adjusted(p, at_rank):
    """Each p-value adjusted by at_rank(k, ranked): k is its rank (0 for the
    smallest), ranked the p-values in increasing order."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    ranked = [p[i] for i in order]
    rank = {i: k for k, i in enumerate(order)}
    return [min(1.0, at_rank(rank[i], ranked)) for i in range(len(p))]


def holm(p):
    m = len(p)
    return adjusted(p, lambda k, ranked: max((m - j) * ranked[j] for j in range(k + 1)))


def bh(p):
    m = len(p)
    return adjusted(p, lambda k, ranked: min(m / (j + 1) * ranked[j] for j in range(k, m)))


def adjust_cases(rng):
    sets = [
        [0.01, 0.04, 0.03, 0.005],
        [0.2, 0.001, 0.04, 0.04, 0.9, 0.0001, 0.3],
        list(rng.uniform(0, 0.1, 25)),
        [0.5],
    ]
    return [{"p": [float(v) for v in s], "holm": holm(s), "bh": bh(s)} for s in sets]


def paired_cases(rng):
    cases = []

    def add(name, candidate, reference):
        c = np.asarray(candidate, dtype=float)
        r = np.asarray(reference, dtype=float)
        t = stats.ttest_rel(np.log(c), np.log(r))
        ci = t.confidence_interval(0.95)
        l = np.log(c) - np.log(r)
        w = stats.wilcoxon(l)
        # The Hodges-Lehmann estimate and its signed-rank interval, by brute
        # force over the Walsh averages and SciPy's own null distribution.
        n = len(l)
        walsh = np.sort([(l[i] + l[j]) / 2 for i in range(n) for j in range(i, n)])
        cdf = np.cumsum(_get_wilcoxon_distr(n))
        k = int(np.sum(cdf <= 0.025))
        mad_sd = 1.4826 * np.median(np.abs(l - np.median(l)))
        cases.append({"name": name, "ratios": [float(v) for v in c / r], "t": float(t.statistic),
                      "p_t": float(t.pvalue), "low": float(ci.low), "high": float(ci.high),
                      "p_wilcoxon": float(w.pvalue), "hodges_lehmann": float(np.median(walsh)),
                      "hl_low": float(walsh[k - 1]), "hl_high": float(walsh[len(walsh) - k]),
                      "outliers": int(np.sum(np.abs(l - np.median(l)) > 4 * mad_sd)) if mad_sd > 0 else 0})

    def drifting(rounds, effect, sigma, drift):
        base = 400e-6 * np.exp(np.cumsum(rng.normal(0, drift, rounds)))
        reference = base * np.exp(rng.normal(0, sigma, rounds))
        candidate = (1 + effect) * base * np.exp(rng.normal(0, sigma, rounds))
        return candidate, reference

    add("A/A 20 rounds on a drifting rig", *drifting(20, 0.0, 0.02, 0.05))
    add("10 % more work, 20 rounds", *drifting(20, 0.10, 0.03, 0.05))
    add("3 % more work, 12 rounds", *drifting(12, 0.03, 0.02, 0.1))
    add("A/A 8 rounds, wide", *drifting(8, 0.0, 0.08, 0.02))
    add("60 rounds (normal approximation)", *drifting(60, 0.02, 0.04, 0.03))
    add("one disturbed round", [1.01, 0.99, 1.02, 1.0 + 1e-3, 0.98, 1.35, 1.01, 0.995],
        [1.0] * 8)
    add("tied magnitudes", [1.02, 1 / 1.02, 1.05, 1.02, 0.97, 1.05], [1.0] * 6)
    return cases


def nights_cases(rng):
    cases = []

    def add(name, nights, value):
        v = np.log(np.asarray(nights, dtype=float))
        n = len(v)
        se = v.std(ddof=1) * math.sqrt(1 / n + 1)
        est = math.log(value) - v.mean()
        df = n - 1
        half = stats.t.ppf(0.975, df) * se
        cases.append({"name": name, "nights": [float(x) for x in nights], "value": float(value),
                      "estimate": est, "se": se, "df": df, "p": float(2 * stats.t.sf(abs(est / se), df)),
                      "low": est - half, "high": est + half,
                      "detectable": float((stats.t.ppf(0.975, df) + stats.t.ppf(0.8, df)) * se)})

    add("five nights, same", [485e-6, 470e-6, 501e-6, 492e-6, 479e-6], 488e-6)
    add("five nights, 1.5x slower", [485e-6, 470e-6, 501e-6, 492e-6, 479e-6], 741e-6)
    add("bimodal nights", [279e-6, 535e-6, 300e-6, 520e-6, 290e-6], 741e-6)
    add("twenty nights", list(rng.lognormal(math.log(48e9), 0.03, 20)), 44e9)
    return cases


def build():
    rng = np.random.default_rng(20261129)
    return {
        "generator": f"scripts/gen-stats-vectors.py, scipy {scipy.__version__}, numpy {np.__version__}",
        "mann_whitney": mwu_cases(rng),
        "noise_band": band_cases(rng),
        "p_adjust": adjust_cases(rng),
        "welch": welch_cases(rng),
        # A generator of their own, so the cases above stay as they were.
        "paired": paired_cases(np.random.default_rng(20261203)),
        "nights": nights_cases(np.random.default_rng(20261204)),
    }


def main():
    text = json.dumps(build(), indent=1) + "\n"
    if "--check" in sys.argv:
        if OUT.read_text() != text:
            sys.exit(f"{OUT} is out of date; run {sys.argv[0]}")
        return
    OUT.write_text(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
