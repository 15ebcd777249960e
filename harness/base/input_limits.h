// The limits on what the harness reads from files a user (or an attacker)
// hands it, in one place. Input beyond them is refused with exit 2 before
// anything large is allocated; the error names the file and the limit.
// (The capture readers' own limits on samples, channels and inflated bytes
// live with them in probes/capture/.)
#pragma once

#include <cstdint>

namespace harness {

// A scenario file or a counter group file: real ones are a few KiB.
inline constexpr std::uint64_t kMaxScenarioBytes = 1ull << 20;
// A bundle's manifest.json: a few hundred bytes per listed file.
inline constexpr std::uint64_t kMaxManifestBytes = 4ull << 20;
// A bundle's recording.json, and a run's stored recording: every raw sample
// of every level as JSON text (a million latency samples are ~25 MiB, so
// this holds five million). The text and its parsed values are in memory
// together: with kMaxJsonMemoryBytes that stays under 400 MiB.
inline constexpr std::uint64_t kMaxRecordingBytes = 128ull << 20;
// Nesting of any JSON document the harness reads: the deepest it writes is
// under 10; deep nesting only exhausts a reader's stack.
inline constexpr int kMaxJsonDepth = 64;
// A per-layer profile ([roofline.profile]): a profiler's JSON or table. An
// ONNX Runtime profile is ~300 KB per run of a 200-node model, so this holds
// some 200 runs; the parsed JSON costs several times the text.
inline constexpr std::uint64_t kMaxProfileBytes = 64ull << 20;
// What the parsed values of one JSON document may take in memory (the
// estimate of bounded_json.h, which counts every element by its cost): a
// recording at its size limit of numbers takes about 2x its text, so this
// passes every document the harness writes; empty objects or arrays take up
// to 30x their text, and are refused here instead of growing the process.
inline constexpr std::uint64_t kMaxJsonMemoryBytes = 256ull << 20;
// A tensor sidecar (the .json beside a raw dump) or an .npz's quantization
// companion: a few hundred bytes, a few thousand per-channel scales at most.
inline constexpr std::uint64_t kMaxSidecarBytes = 1ull << 20;
// A recorded counter source's snapshots file (a counter group's source of
// kind "recorded"): a snapshot of a few hundred counters per reading.
inline constexpr std::uint64_t kMaxCounterSnapshotBytes = 64ull << 20;
// A line of a command workload's output read as JSON ([workload]
// latency_field): a report is tens of bytes; a longer line is not one.
inline constexpr std::uint64_t kMaxWorkloadLineBytes = 64ull << 10;
// An expectation file (`replay --expect`).
inline constexpr std::uint64_t kMaxExpectationBytes = 64ull << 20;
// A published site's .publish-manifest.json (`harness publish`): about 100
// bytes per page and per run report.
inline constexpr std::uint64_t kMaxSiteManifestBytes = 128ull << 20;

// Level 5's tensor dumps (probes/tensor/): an .npy, raw or .npz file (each
// streamed, never read whole), and what an .npz archive's entries declare
// they inflate to, together: 64 GiB, a bundle's limit for one file.
inline constexpr std::uint64_t kMaxTensorFileBytes = 64ull << 30;
inline constexpr std::uint64_t kMaxTensorArchiveInflatedBytes = 64ull << 30;
// Read whole: a tensor's JSON sidecar (one layer's per-channel scales are a
// few hundred KiB), an .npz archive's quantization companion (every layer's),
// and a layer map (a line per layer): kMaxSidecarBytes above, and these.
inline constexpr std::uint64_t kMaxCompanionBytes = 64ull << 20;
inline constexpr std::uint64_t kMaxLayerMapBytes = 16ull << 20;

// ---- Figures a scenario (or a vendor's data, a command line) may state ----
// Beyond these a figure is a typo or an attack, not a device: refused at
// parse time with file:line:column, exit 2. Each is set from physics with a
// wide margin, so that no real device comes near it, and low enough that the
// arithmetic done with the figures (ratios, products, nanosecond clocks)
// stays finite and exact enough.
//
// A compute rate: the largest accelerators reach ~2e16 op/s at their
// narrowest precision (fp4), an edge NPU ~1e14; 1e18 (an exa-op/s) is 50x
// the largest.
inline constexpr double kMaxComputeRate = 1e18;
// A bandwidth: an HBM3e stack gives ~1.2 TB/s, a whole package ~8 TB/s,
// on-chip SRAM ~100 TB/s; 1 PB/s is 10x the fastest memory there is.
inline constexpr double kMaxBandwidth = 1e15;
// A frequency: no digital clock passes 10 GHz, no logic analyzer samples
// above 100 GHz; 1 THz is 10x that.
inline constexpr double kMaxFrequency = 1e12;
// A size: 1 PiB, a thousand times the memory of the largest edge device
// (LPDDR5X: 64 GiB) and beyond any capture or dump a run reads.
inline constexpr double kMaxSize = 1125899906842624.0;
// A time (a timeout, a duration, a window): a year. No run, soak or window
// lasts longer; the clocks count nanoseconds in 63 bits (292 years), and a
// deadline is a time added to one.
inline constexpr double kMaxTime = 365.25 * 86400;
// A power: an edge device draws under 100 W, a rack of accelerators 100 kW;
// 1 MW is a data-centre row.
inline constexpr double kMaxPower = 1e6;
// An energy: 1 MW for a year, rounded up.
inline constexpr double kMaxEnergy = 1e14;
// A plain number (a count of operations, a ratio, a scale): 1e18, the most
// operations an iteration could do at kMaxComputeRate in a second; products
// of such figures stay finite.
inline constexpr double kMaxPlainNumber = 1e18;
// A ceiling is at least 1 op/s or 1 B/s: anything smaller (1e-300 GB/s)
// turns the roofline's ratios into infinities.
inline constexpr double kMinCeiling = 1;
// A built-in kernel's buffers (what it allocates on the device): 1 TiB,
// 16x the memory of the largest edge device; its operations per iteration:
// kMaxPlainNumber. Checked on the product of its dimensions, which the
// parser computes without overflow (m = n = k = 2^32 is 2^96 operations).
inline constexpr double kMaxKernelBytes = 1099511627776.0;

}  // namespace harness
