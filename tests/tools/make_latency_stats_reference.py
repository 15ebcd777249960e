#!/usr/bin/python3
"""Writes tests/data/latency_stats_reference.json: reference values for
harness/base/stats_test.cc computed with numpy and scipy (Debian packages
python3-numpy, python3-scipy), independently of the C++ code.

Percentiles: numpy.percentile (linear, Hyndman & Fan type 7).
Quantile intervals: ranks l, u (1-based) of the order statistics with
  l = largest k with binom.cdf(k - 1, n, q) <= (1 - c) / 2
  u = smallest k with binom.cdf(k - 1, n, q) >= 1 - (1 - c) / 2
and coverage = binom.cdf(u - 1) - binom.cdf(l - 1); absent when l < 1 or u > n.
Run it from the repository root: tests/tools/make_latency_stats_reference.py
"""
import json

import numpy as np
from scipy.stats import binom

rng = np.random.default_rng(20261129)
# A skewed latency-like sample: lognormal around 5 ms with a heavy tail.
sample = [round(float(x), 9) for x in rng.lognormal(mean=np.log(5e-3), sigma=0.3, size=257)]

percentiles = {str(p): float(np.percentile(sample, p)) for p in (0, 1, 25, 50, 90, 95, 99, 99.9, 100)}

def interval(n, q, c):
    tail = (1 - c) / 2
    ks = np.arange(0, n + 1)
    cdf = binom.cdf(ks, n, q)  # cdf[k] = F(k)
    ls = [k for k in range(1, n + 1) if cdf[k - 1] <= tail]
    us = [k for k in range(1, n + 1) if cdf[k - 1] >= 1 - tail]
    if not ls or not us:
        return None
    l, u = max(ls), min(us)
    return {"lower_rank": l, "upper_rank": u, "coverage": float(cdf[u - 1] - cdf[l - 1])}

cases = []
for n in (5, 6, 10, 20, 71, 72, 100, 300, 366, 367, 1000):
    for q in (0.5, 0.9, 0.95, 0.99):
        cases.append({"n": n, "q": q, "confidence": 0.95, "interval": interval(n, q, 0.95)})
cases.append({"n": 100, "q": 0.5, "confidence": 0.99, "interval": interval(100, 0.5, 0.99)})

def min_samples(q, c):
    n = 1
    while interval(n, q, c) is None:
        n += 1
    return n

minimum = [{"q": q, "confidence": 0.95, "n": min_samples(q, 0.95)} for q in (0.5, 0.9, 0.95, 0.99)]

out = {
    "sample": sample,
    "mean": float(np.mean(sample)),
    "stddev": float(np.std(sample, ddof=1)),
    "percentiles": percentiles,
    "intervals": cases,
    "min_samples": minimum,
}
with open("tests/data/latency_stats_reference.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
