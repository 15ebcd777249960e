#!/usr/bin/python3
"""Writes tests/data/strobe/*.vcd and tests/data/strobe/truth.json: synthetic
captures of a DRAM bus's CK, chip select and data strobe as a logic analyzer
sampling them asynchronously records them, made with NumPy outside the
project (Debian 12: apt-get install python3-numpy), independently of
harness/ddr/synth.cc. strobe_vectors_test.cc decodes them and holds the
strobe estimate of DQ activity to truth.json.

  scripts/gen-strobe-vectors.py            # rewrite the files
  scripts/gen-strobe-vectors.py --check    # fail if they are out of date

How a capture is made (all times continuous, in seconds, then sampled):
- the analyzer samples at fs; CK runs at a period that is not a multiple of
  the sample period (tCK = spc / fs x (1 + 3.7e-4)), from a random phase;
- the chip select stays deselected and the command pins idle (no commands:
  the strobe is the only source of DQ activity);
- strobe bursts of the standard's length (DDR4 BL8: 4 tCK; LPDDR4 BL16:
  8 tCK; LPDDR5 BL16 at WCK:CK 2:1: 4 tCK with RDQS at WCK rate, two pulses
  per tCK), a third of them seamless after the one before, the others after
  an idle gap of 2 to 16 tCK; each run of bursts is the data time (truth);
- each run: a static preamble (the strobe driven low one tCK before its
  first rising edge), its pulses (rising at the start of each strobe period
  plus the skew, falling `duty` of a period later), a static postamble
  (driven low half a tCK), then parked: tri-stated (VCD z) on DDR4, low on
  LPDDR4 and LPDDR5;
- impairments: every strobe edge moved by a uniform draw in +-jitter
  samples; a constant skew of the strobe against CK (in tCK); the duty
  cycle; ringing: with probability `ringing` an edge bounces back for
  exactly one sample (the first sample 0.5 to 1.5 samples after it), when
  the next edge is far enough away for the bounce to end before it;
- the levels are taken at each sample time and written as VCD value changes
  at the sample times (timescale 1 ps), as an analyzer's export does.
truth.json gives, per file, the standard, the samples per clock, the strobe
pulses per tCK, the data time in tCK and the true DQ active ratio (data
time over the capture's duration).
"""
import json
import pathlib
import sys

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "strobe"

# name, standard, samples per clock, pulses per tCK, burst tCK, jitter (samples), skew (tCK), duty, ringing
CASES = [
    ("ddr4-all-skew+0.5", "ddr4", 8, 1, 4, 1.0, 0.5, 0.4, 0.05),
    ("ddr4-all-skew-0.25", "ddr4", 8, 1, 4, 1.0, -0.25, 0.6, 0.05),
    ("lpddr4-all-skew+0.5", "lpddr4", 8, 1, 8, 1.0, 0.5, 0.4, 0.05),
    ("lpddr4-all-skew-0.5", "lpddr4", 8, 1, 8, 1.0, -0.5, 0.6, 0.05),
    ("lpddr5-rdqs-all-skew+0.5", "lpddr5", 16, 2, 4, 1.0, 0.5, 0.4, 0.05),
    ("lpddr5-rdqs-all-skew-0.25", "lpddr5", 16, 2, 4, 1.0, -0.25, 0.6, 0.05),
]
CYCLES = 3000
# The pins that tell commands apart, held idle (the decoder needs them probed).
COMMAND_PINS = {
    "ddr4": ["ACT_n", "RAS_n", "CAS_n", "WE_n"],
    "lpddr4": [f"CA{i}" for i in range(6)],
    "lpddr5": [f"CA{i}" for i in range(7)],
}
SAMPLE_PS = {8: 1250, 16: 625}  # analyzer sample period: 800 MHz, 1.6 GHz


def runs_of_bursts(rng, burst_tck):
    """(start cycle, length tCK) of each run of seamless bursts."""
    runs, at = [], 24
    while True:
        length = burst_tck
        while rng.random() < 1 / 3:  # seamless: the next burst continues the run
            length += burst_tck
        if at + length + 8 > CYCLES:
            return runs
        runs.append((at, length))
        at += length + int(rng.integers(2, 17))


def strobe_edges(rng, runs, tck, fs, ppt, jitter, skew, duty, parked):
    """Edges (time, level) of the strobe; level 2 is z (tri-stated)."""
    times, levels = [0.0], [parked]
    period = tck / ppt
    for start_cycle, length in runs:
        start = start_cycle * tck + skew * tck
        times.append(start - tck)  # static preamble: driven low
        levels.append(0)
        k = np.arange(length * ppt)
        rise = start + k * period + rng.uniform(-jitter, jitter, k.size) / fs
        fall = start + (k + duty) * period + rng.uniform(-jitter, jitter, k.size) / fs
        for r, f in zip(rise, fall):
            times += [r, f]
            levels += [1, 0]
        times.append(fall[-1] + tck / 2)  # postamble ends: parked
        levels.append(parked)
    return np.array(times), np.array(levels)


def add_ringing(rng, times, levels, fs, chance):
    """Each data edge bounces back for one sample with probability `chance`."""
    out_t, out_l = list(times), list(levels)
    for i in range(1, len(times) - 1):
        if levels[i] == 2 or levels[i - 1] == 2 or rng.random() >= chance:
            continue
        first = np.ceil((times[i] + 0.5 / fs) * fs)  # first sample 0.5 samples after the edge
        bounce = first / fs
        if times[i + 1] - bounce < 1.5 / fs:
            continue  # the bounce would run into the next edge
        out_t += [bounce - 0.25 / fs, bounce + 0.25 / fs]
        out_l += [1 - levels[i], levels[i]]
    order = np.argsort(out_t, kind="stable")
    return np.array(out_t)[order], np.array(out_l)[order]


def sample(times, levels, t):
    idx = np.searchsorted(times, t, side="right") - 1
    return levels[np.maximum(idx, 0)]


def make(case, seed):
    name, standard, spc, ppt, burst_tck, jitter, skew, duty, ringing = case
    rng = np.random.default_rng(seed)
    sample_ps = SAMPLE_PS[spc]
    fs = 1e12 / sample_ps
    tck = spc / fs * (1 + 3.7e-4)
    phase = rng.uniform(0.1, 0.9) * tck
    n = int(CYCLES * tck * fs)
    t = np.arange(n) / fs
    ck = (((t - phase) / tck) % 1.0 < 0.5).astype(np.int8)
    ck[t < phase] = 0
    runs = runs_of_bursts(rng, burst_tck)
    parked = 2 if standard == "ddr4" else 0
    et, el = strobe_edges(rng, runs, tck, fs, ppt, jitter, skew, duty, parked)
    et = et + phase
    et[0] = 0.0
    et, el = add_ringing(rng, et, el, fs, ringing)
    dqs = sample(et, el, t)
    cs_name, cs_level = ("CS_n", 1) if standard == "ddr4" else ("CS", 0)
    strobe_name = "RDQS0_t" if standard == "lpddr5" else "DQS0_t"
    command_pins = COMMAND_PINS[standard]
    idle = 1 if standard == "ddr4" else 0
    data_tck = sum(length for _, length in runs)
    truth = {
        "file": f"{name}.vcd",
        "standard": standard,
        "samples_per_clock": spc,
        "pulses_per_tck": ppt,
        "probed": ["CK", cs_name] + command_pins + [strobe_name.removesuffix("_t")],
        "strobe": strobe_name,
        "runs": len(runs),
        "data_tck": data_tck,
        "dq_active_ratio": data_tck * tck / (n / fs),
    }
    channels = [("CK_t", ck), (cs_name, np.full(n, cs_level))]
    channels += [(pin, np.full(n, idle)) for pin in command_pins]
    return vcd_text(name, sample_ps, channels + [(strobe_name, dqs)]), truth


def vcd_text(name, sample_ps, channels):
    ids = "!\"#$%&'()*+,-./"
    lines = [
        "$date synthetic $end",
        f"$version scripts/gen-strobe-vectors.py ({name}: synthetic, see the script's docstring) $end",
        "$timescale 1 ps $end",
        "$scope module analyzer $end",
    ]
    lines += [f"$var wire 1 {ids[i]} {c} $end" for i, (c, _) in enumerate(channels)]
    lines += ["$upscope $end", "$enddefinitions $end"]
    chars = "01z"
    values = np.stack([v for _, v in channels])
    change = np.ones(values.shape[1], dtype=bool)
    change[1:] = np.any(values[:, 1:] != values[:, :-1], axis=0)
    prev = None
    for i in np.nonzero(change)[0]:
        parts = [f"#{i * sample_ps}"]
        for c in range(values.shape[0]):
            v = values[c, i]
            if prev is None or prev[c] != v:
                parts.append(f"{chars[v]}{ids[c]}")
        prev = values[:, i].copy()
        lines.append("\n".join(parts))
    lines.append(f"#{values.shape[1] * sample_ps}")
    return "\n".join(lines) + "\n"


def main():
    files, truths = {}, []
    for i, case in enumerate(CASES):
        text, truth = make(case, 20261203 + i)
        files[truth["file"]] = text
        truths.append(truth)
    files["truth.json"] = json.dumps(truths, indent=1) + "\n"
    if "--check" in sys.argv:
        stale = [f for f, text in files.items() if not (OUT / f).exists() or (OUT / f).read_text() != text]
        if stale:
            sys.exit(f"out of date: {', '.join(stale)} (run scripts/gen-strobe-vectors.py)")
        return
    OUT.mkdir(parents=True, exist_ok=True)
    for f, text in files.items():
        (OUT / f).write_text(text)


if __name__ == "__main__":
    main()
