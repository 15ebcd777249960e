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

}  // namespace harness
