#include "harness/model/metric_catalogue.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

namespace harness {
namespace {

using B = Better;
constexpr unsigned kBoundsVsBaseline = kExpectBounds | kExpectVsBaseline;

// ---- Level 1: roofline (microbenchmarks, ceilings, kernels, layer profile) ----
const CatalogueEntry kRooflineMetrics[] = {
    {"roofline", "", B::none, false, "", 0, "", "",
     "the level as a whole: only ever unavailable, saying why (no [roofline] section)"},
    {"bandwidth.seq_read.<N>t", "B/s", B::higher, false, "", 0, "", "",
     "sequential-read bandwidth of the host microbenchmark on N threads (median of the repetitions)", Series::both, true},
    {"bandwidth.l2", "B/s", B::higher, false, "", 0, "", "",
     "read bandwidth of a buffer that fits the L2 cache (host microbenchmark)", Series::both, true},
    {"bandwidth.random_4k", "B/s", B::higher, false, "random_4k_bandwidth", kExpectBounds, "", "",
     "bandwidth of random 4 KiB block reads (host microbenchmark)", Series::both, true},
    {"bandwidth.burst_<N>B", "B/s", B::higher, false, "", 0, "", "",
     "bandwidth of random N-byte bursts (host microbenchmark; [roofline] bursts)", Series::both, true},
    {"compute.fma_fp32.<N>t", "op/s", B::higher, false, "", 0, "", "",
     "FP32 FMA peak of the host microbenchmark on N threads (median)", Series::both, true},
    {"bandwidth.<figure>", "B/s", B::higher, false, "", 0, "", "",
     "a bandwidth figure read from a vendor tool's output ([[roofline.vendor]] figures)"},
    {"compute.<figure>", "op/s", B::higher, false, "", 0, "", "",
     "a compute figure read from a vendor tool's output ([[roofline.vendor]] figures)"},
    {"ceiling.memory.dram", "B/s", B::higher, false, "dram_bandwidth", kExpectBounds, "", "",
     "the DRAM roof: declared, a vendor figure bandwidth.dram, or the fastest sequential read; measured, also "
     "its repetitions", Series::both, true},
    {"ceiling.memory.<name>", "B/s", B::higher, false, "", 0, "", "",
     "a memory roof of the rig ([rig.memory]): declared or measured; measured, also its repetitions", Series::both,
     true},
    {"ceiling.compute.fp32", "op/s", B::higher, false, "fp32_peak", kExpectBounds, "", "",
     "the FP32 compute roof: declared, a vendor figure compute.fp32, or the fastest FMA run; measured, also its "
     "repetitions", Series::both, true},
    {"ceiling.compute.<name>", "op/s", B::higher, false, "", 0, "", "",
     "a compute roof of the rig ([rig.compute]): declared or measured; measured, also its repetitions", Series::both,
     true},
    {"ridge.<compute>.<memory>", "op/B", B::none, false, "", 0, "", "",
     "the ridge point: compute roof / memory roof, the intensity where a kernel stops being memory-bound"},
    {"profile", "", B::none, false, "", 0, "", "",
     "the layer profile as a whole: only ever unavailable, saying why (not read, not parsable)"},
    {"profile.layers", "1", B::none, false, "", 0, "", "", "number of layers (ops) in the profile"},
    {"profile.total_time", "s", B::lower, false, "total_time", kExpectBounds, "[roofline.profile.expect]", "",
     "sum of the layers' measured times"},
    {"profile.bandwidth_bound", "1", B::none, false, "bandwidth_bound_layers", kExpectBounds,
     "[roofline.profile.expect]", "", "number of layers below the ridge (memory-bound); the text lists them"},
    {"profile.predicted_time", "s", B::none, false, "", 0, "", "",
     "sum of the placed layers' roofline times (model)"},
    {"profile.calibration", "1", B::none, false, "calibration", kExpectBounds, "[roofline.profile.expect]", "",
     "measured / predicted time over the placed layers: the factor that calibrates the model"},
    {"profile.top_time_share", "1", B::none, false, "top_time_share", kExpectBounds, "[roofline.profile.expect]", "",
     "share of the total time spent in the top layers (top = N)"},
    {"profile.copy_time_share", "1", B::lower, false, "copy_time_share", kExpectBounds, "[roofline.profile.expect]",
     "", "share of the total time in permute/transpose/copy-like ops"},
    {"profile.idle_time", "s", B::lower, false, "idle_time", kExpectBounds, "[roofline.profile.expect]", "",
     "sum of the gaps between ops (needs start times in the profile)"},
    {"profile.idle_gaps", "1", B::lower, false, "", 0, "", "", "number of gaps between ops (per inference)"},
    {"profile.runs", "1", B::none, false, "", 0, "", "", "inferences the profile covers (times are per inference)"},
    {"profile.unplaced", "1", B::none, false, "", 0, "", "",
     "layers timed but without flops or bytes, so not placed on the roofline; the text lists them"},
    {"profile.sync_time", "s", B::lower, false, "sync_time", kExpectBounds, "[roofline.profile.expect]", "",
     "time in synchronisation events the profile marks apart from kernels (ONNX Runtime fences), per inference"},
    {"profile.cpu_fallback_share", "1", B::lower, false, "cpu_fallback_share", kExpectBounds,
     "[roofline.profile.expect]", "",
     "share of the profile's time in layers that ran on the CPU (provider, delegate or target); the text splits the "
     "time by where it ran"},
    {"profile.idle_gap_max", "s", B::lower, false, "", 0, "", "", "the largest gap between ops; the text says where"},
    {"layer.<layer>.time", "s", B::lower, false, "", 0, "", "",
     "a profile layer's time per inference (measured; Vela's estimates: model)"},
    {"layer.<layer>.time_share", "1", B::none, false, "", 0, "", "", "a profile layer's share of the profile's time"},
    {"layer.<layer>.intensity", "op/B", B::higher, false, "", 0, "", "", "a profile layer's flops / bytes"},
    {"layer.<layer>.achieved", "op/s", B::higher, false, "", 0, "", "",
     "a profile layer's flops / measured time: its point on the roofline"},
    {"layer.<layer>.predicted_time", "s", B::none, false, "", 0, "", "",
     "a profile layer's roofline time: max(flops / compute roof, bytes / memory roof) (model)"},
    {"layer.<layer>.prediction_error", "1", B::none, false, "", 0, "", "",
     "(predicted - measured) / measured time of a profile layer"},
    {"layer.<layer>.attainable", "op/s", B::none, false, "", 0, "", "",
     "the roofline's bound at a profile layer's intensity (model)"},
    {"layer.<layer>.bound", "", B::none, false, "", 0, "", "",
     "memory or compute: which roof binds a profile layer (categorical)"},
    {"<kernel>.flops", "op", B::none, false, "", 0, "", "", "a kernel's operations: declared or its formula (model)"},
    {"<kernel>.time", "s", B::lower, false, "", 0, "", "",
     "a kernel's time: declared, or the median of its runs", Series::both, true},
    {"<kernel>.achieved", "op/s", B::higher, false, "achieved", kExpectBounds, "[[roofline.kernels]] expect", "",
     "a kernel's flops / time; with a measured time, also flops / each round's time", Series::both, true},
    {"<kernel>.bytes", "B", B::none, false, "", 0, "", "",
     "a kernel's DRAM traffic: declared, compulsory (model), or from levels 2/3 (bytes_source)"},
    {"<kernel>.intensity", "op/B", B::higher, false, "intensity", kExpectBounds | kExpectGainMin | kExpectIncreased,
     "[[roofline.kernels]] expect", "",
     "a kernel's arithmetic intensity, flops / bytes"},
    {"<kernel>.attainable", "op/s", B::higher, false, "", 0, "", "",
     "the roofline's bound at the kernel's intensity: min(compute roof, memory roof x intensity); with measured "
     "roofs, also with each round's", Series::both, true},
    {"<kernel>.ridge_distance", "decades", B::none, false, "ridge_distance", kExpectBounds,
     "[[roofline.kernels]] expect", "", "log10(intensity / ridge): negative below the ridge (memory-bound)"},
    {"<kernel>.bound", "", B::none, false, "bound", kExpectEquals, "[[roofline.kernels]] expect", "memory|compute",
     "memory or compute: which roof binds the kernel (categorical)"},
    {"<kernel>.binding_ceiling", "op/s|B/s", B::none, false, "", 0, "", "",
     "the value of the roof that caps attainable; the text names it"},
    {"<kernel>.utilisation", "1", B::higher, false, "utilisation", kExpectBounds, "[[roofline.kernels]] expect", "",
     "achieved / attainable: how close the kernel gets to its roof; with measured roofs, also in each round",
     Series::both, true},
};

// ---- Level 2: counters (perf events, text files, vendor commands; group formulas) ----
const CatalogueEntry kCountersMetrics[] = {
    {"counters", "", B::none, false, "", 0, "", "",
     "the level as a whole: only ever unavailable, saying why (no [counters] section, no readings)"},
    {"counter.bytes_per_iteration", "*", B::none, true, "", 0, "", "",
     "a group's derived 'bytes' / the iterations counted (in the group's unit, B): what level 1 places per run "
     "of the workload"},
    {"counter.<name>", "*", B::none, true, "<name>", kExpectBounds | kExpectBaselineChange, "[counters.expect]", "",
     "a counter's delta over the counted iterations (better: lower) or a group's derived metric (unit and "
     "direction from the group file); read in windows, also each window's value scaled to the run's iterations",
     Series::both, true},
};

// ---- Level 3: DDR (a logic-analyzer capture of the DRAM bus, decoded) ----
const CatalogueEntry kDdrMetrics[] = {
    {"ddr", "", B::none, false, "", 0, "", "",
     "the level as a whole: only ever unavailable, saying why (no [ddr] section)"},
    {"ddr.duration", "s", B::none, false, "", 0, "", "", "length of the decoded capture"},
    {"ddr.clock_cycles", "1", B::none, false, "", 0, "", "", "CK cycles in the capture"},
    {"ddr.clock_frequency", "Hz", B::none, false, "", 0, "", "", "CK frequency (1 / the clock period)"},
    {"ddr.clock_stops", "1", B::none, false, "", 0, "", "", "times the clock stopped (power-down, frequency change)"},
    {"ddr.commands.<command>", "1", B::none, false, "", 0, "", "",
     "commands decoded by name (ACT, RD, RDA, WR, PRE, REF ...); unavailable when the probed pins do not tell "
     "them apart"},
    {"ddr.reads", "1", B::none, false, "reads", kBoundsVsBaseline, "", "", "read bursts (RD and RDA)"},
    {"ddr.writes", "1", B::none, false, "writes", kBoundsVsBaseline, "", "", "write bursts (WR and WRA)"},
    {"ddr.read_bytes", "B", B::none, false, "", 0, "", "", "bytes read: read bursts x burst bytes"},
    {"ddr.write_bytes", "B", B::none, false, "", 0, "", "", "bytes written: write bursts x burst bytes"},
    {"ddr.bytes", "B", B::none, false, "bytes", kBoundsVsBaseline, "", "",
     "bytes moved on the bus; level 1 takes a kernel's bytes from it (bytes_source = \"ddr\")"},
    {"ddr.bandwidth", "B/s", B::higher, false, "bandwidth", kBoundsVsBaseline, "", "", "bytes / capture duration"},
    {"ddr.transactions", "1", B::none, false, "transactions", kBoundsVsBaseline, "", "",
     "transactions: runs of back-to-back bursts to one row"},
    {"ddr.burst_bytes_mode", "B", B::none, false, "burst_bytes_mode", kExpectEquals, "", "<bytes>",
     "the most frequent transaction size; the text is the number (burst_bytes_mode = 64)"},
    {"ddr.transactions.<N>B", "1", B::none, false, "", 0, "", "",
     "transactions of N bytes: the bytes-per-transaction histogram"},
    {"ddr.read_interval_p50", "s", B::lower, false, "read_interval_p50", kBoundsVsBaseline, "", "",
     "median time between successive RD commands"},
    {"ddr.read_interval_p95", "s", B::lower, false, "read_interval_p95", kBoundsVsBaseline, "", "",
     "95th percentile of the time between successive RD commands"},
    {"ddr.read_interval_p50_tck", "1", B::lower, false, "read_interval_p50_tck", kBoundsVsBaseline, "", "",
     "median time between successive RD commands, in clock cycles"},
    {"ddr.read_interval", "s", B::lower, false, "", 0, "", "",
     "the times between successive RD commands (an evenly strided sample when long)", Series::samples},
    {"ddr.dq_active_ratio", "1", B::higher, false, "dq_active_ratio", kBoundsVsBaseline, "", "",
     "share of time the data bus carries data: from DQS toggles (measured) or command timing (model)"},
    {"ddr.dq_active_ratio_dqs", "1", B::higher, false, "dq_active_ratio_dqs", kBoundsVsBaseline, "", "",
     "data-bus activity from DQS toggles alone (counted on edges: glitch filter, bursts, preambles left out)"},
    {"ddr.dq_active_ratio_dqs_uncertainty", "1", B::none, false, "", 0, "", "",
     "uncertainty of the strobe estimate: one toggle per burst, as a share of the capture"},
    {"ddr.dq_active_ratio_commands", "1", B::higher, false, "dq_active_ratio_commands", kBoundsVsBaseline, "", "",
     "data-bus activity from command timing alone (bursts at the read/write latency; model)"},
    {"ddr.dq_active_timeline", "1", B::higher, false, "", 0, "", "",
     "data-bus activity per timeline window ([ddr] timeline_window)", Series::samples},
    {"ddr.dqs_preamble_cycles", "1", B::none, false, "", 0, "", "",
     "declared toggling DQS preamble left out of the strobe estimate, in tCK"},
    {"ddr.row_hit_rate", "1", B::higher, false, "row_hit_rate", kBoundsVsBaseline, "", "",
     "share of RD/WR to an already open row"},
    {"ddr.row_miss_rate", "1", B::lower, false, "", 0, "", "", "share of RD/WR to a closed bank (an ACT first)"},
    {"ddr.row_conflict_rate", "1", B::lower, false, "row_conflict_rate", kBoundsVsBaseline, "", "",
     "share of RD/WR to a bank with another row open (PRE and ACT first)"},
    {"ddr.refreshes", "1", B::none, false, "refreshes", kBoundsVsBaseline, "", "", "REF commands"},
};

// ---- Level 4: latency (iterations timed under each load condition, power) ----
// One condition's metrics; the other load conditions repeat them under
// "load.<load>." (added by latency_entries below).
const CatalogueEntry kLatencyCondition[] = {
    {"iterations", "1", B::none, false, "", 0, "", "", "measured iterations (warm-up excluded)"},
    {"latency_p50", "s", B::lower, false, "latency_p50", kExpectBounds, "", "", "median iteration latency"},
    {"latency_p50_ci_low", "s", B::none, false, "", 0, "", "",
     "lower end of the distribution-free confidence interval of p50"},
    {"latency_p50_ci_high", "s", B::none, false, "", 0, "", "",
     "upper end of the distribution-free confidence interval of p50"},
    {"latency_p90", "s", B::lower, false, "latency_p90", kExpectBounds, "", "", "90th percentile latency"},
    {"latency_p95", "s", B::lower, false, "latency_p95", kExpectBounds, "", "", "95th percentile latency"},
    {"latency_p95_ci_low", "s", B::none, false, "", 0, "", "",
     "lower end of the distribution-free confidence interval of p95"},
    {"latency_p95_ci_high", "s", B::none, false, "", 0, "", "",
     "upper end of the distribution-free confidence interval of p95"},
    {"latency_p99", "s", B::lower, false, "latency_p99", kExpectBounds, "", "", "99th percentile latency"},
    {"latency_max", "s", B::lower, false, "latency_max", kExpectBounds, "", "", "slowest iteration"},
    {"latency_mean", "s", B::lower, false, "latency_mean", kExpectBounds, "", "", "mean iteration latency"},
    {"latency_stddev", "s", B::lower, false, "latency_stddev", kExpectBounds, "", "",
     "sample standard deviation of the latencies"},
    {"latency_p95_over_p50", "1", B::lower, false, "p95_over_p50", kExpectBounds, "", "",
     "p95 / p50: how heavy the tail is"},
    {"throughput", "1/s", B::higher, false, "throughput", kExpectBounds, "", "",
     "iterations / measured window"},
    {"token_throughput", "token/s", B::higher, false, "token_throughput", kExpectBounds, "", "",
     "throughput x the workload's tokens_per_iteration"},
    {"power_mean", "W", B::lower, false, "power_mean", kExpectBounds, "", "", "mean power over the measured window"},
    {"energy_per_iteration", "J", B::lower, false, "energy_per_iteration", kExpectBounds, "", "",
     "power_mean / throughput"},
    {"efficiency", "1/J|token/J", B::higher, false, "efficiency", kExpectBounds, "", "",
     "token_throughput / power_mean (or throughput / power_mean without tokens)"},
    {"latency", "s", B::lower, false, "", 0, "", "", "every measured iteration's latency, in the order they ran",
     Series::samples, true},
};
const CatalogueEntry kLatencyBaseline[] = {
    {"efficiency_gain", "1", B::higher, false, "efficiency", kExpectGainMin, "", "",
     "efficiency / the baseline's: unavailable in a run alone, judged by compare"},
    {"power_over_baseline", "1", B::lower, false, "power_not_above_baseline", kExpectFlag, "", "",
     "power_mean / the baseline's: unavailable in a run alone, judged by compare"},
};

// ---- Level 5: accuracy (device tensors against a reference, layer by layer) ----
const CatalogueEntry kAccuracyMetrics[] = {
    {"accuracy", "", B::none, false, "", 0, "", "",
     "the level as a whole: only ever unavailable, saying why (no [accuracy] section)"},
    {"accuracy.layers", "1", B::none, false, "", 0, "", "", "layers paired and compared"},
    {"accuracy.unpaired", "1", B::lower, false, "", 0, "", "", "layers in only one of the two dumps"},
    {"accuracy.min_cosine", "1", B::higher, false, "", 0, "", "", "the lowest layer cosine; the source names the layer"},
    {"accuracy.min_psnr_db", "dB", B::higher, false, "", 0, "", "", "the lowest layer PSNR; the source names the layer"},
    {"accuracy.fp16_candidate.<layer>.latency_share", "1", B::none, false, "", 0, "", "",
     "share of the profiled latency in a layer proposed for FP16 fallback (needs level 1's profile)"},
    {"accuracy.isolated.<layer>.cosine", "1", B::higher, false, "", 0, "", "",
     "cosine similarity of a layer run on the reference's inputs (isolated dump)"},
    {"accuracy.isolated.<layer>.psnr_db", "dB", B::higher, false, "", 0, "", "", "PSNR of an isolated layer"},
    {"accuracy.isolated.<layer>.sqnr_db", "dB", B::higher, false, "", 0, "", "", "SQNR of an isolated layer"},
    {"accuracy.isolated.<layer>.max_abs_error", "1", B::lower, false, "", 0, "", "",
     "largest absolute error of an isolated layer"},
    {"accuracy.isolated.<layer>.mean_abs_error", "1", B::lower, false, "", 0, "", "",
     "mean absolute error of an isolated layer"},
    {"accuracy.isolated.<layer>.relative_l2", "1", B::lower, false, "", 0, "", "",
     "||device - reference|| / ||reference|| of an isolated layer"},
    {"accuracy.isolated.<layer>.device_nan_inf", "1", B::lower, false, "", 0, "", "",
     "NaN and Inf values in an isolated layer's device tensor"},
    {"accuracy.<layer>.cosine", "1", B::higher, false, "cosine_min", kExpectKey | kExpectDropMax,
     "[accuracy], [[accuracy.layer]]", "",
     "cosine similarity of a layer's device tensor to the reference (bound: cosine_min)"},
    {"accuracy.<layer>.psnr_db", "dB", B::higher, false, "psnr_min_db", kExpectKey | kExpectDropMax,
     "[accuracy], [[accuracy.layer]]", "",
     "peak signal-to-noise ratio of a layer (bound: psnr_min_db)"},
    {"accuracy.<layer>.sqnr_db", "dB", B::higher, false, "", 0, "", "", "signal-to-quantisation-noise ratio of a layer"},
    {"accuracy.<layer>.max_abs_error", "1", B::lower, false, "", 0, "", "", "largest absolute error of a layer"},
    {"accuracy.<layer>.mean_abs_error", "1", B::lower, false, "", 0, "", "", "mean absolute error of a layer"},
    {"accuracy.<layer>.relative_l2", "1", B::lower, false, "", 0, "", "", "||device - reference|| / ||reference||"},
    {"accuracy.<layer>.device_nan_inf", "1", B::lower, false, "", 0, "", "",
     "NaN and Inf values in a layer's device tensor"},
    {"accuracy.<layer>.cosine_min", "1", B::none, false, "", 0, "", "",
     "the cosine bound that applies to the layer (declared), drawn beside its bar"},
    {"accuracy.<layer>.psnr_min_db", "dB", B::none, false, "", 0, "", "",
     "the PSNR bound that applies to the layer (declared), drawn beside its bar"},
};

// The generated names' storage (the tables hold string_views; two levels'
// tables may be made at once on different threads).
std::string_view keep(std::string text) {
  static std::mutex mutex;
  static std::deque<std::string> names;
  std::lock_guard lock(mutex);
  return names.emplace_back(std::move(text));
}

// ---- The rig's stability around a level's acquisition on the device (harness/levels/stability.cc) ----
// Levels 1, 2 and 4, whose work runs on the device, each carry these rows
// with "<level>" spelled out ("stability.latency.canary_change"); compare
// judges a level whose stability.<level> reads "unstable: ..." cannot tell.
const CatalogueEntry kStabilityRows[] = {
    {"stability.<level>", "", B::none, false, "", 0, "", "",
     "whether the rig held still around the level's acquisition ([rig.stability] limits): \"stable\" (1), or "
     "\"unstable: <what broke>\" (0), whose metrics compare then judges cannot tell; unavailable when nothing "
     "could be read"},
    {"stability.<level>.canary_change", "1", B::none, false, "", 0, "", "",
     "the fixed canary's CPU time (the wall clock from an older agent) at the window's end over its start, minus 1, "
     "summed over the workload's CPUs (canary_change_max)"},
    {"stability.<level>.cpu_freq_drop", "1", B::lower, false, "", 0, "", "",
     "the largest fall of a workload CPU's clock between the window's ends, both read under the canary's load "
     "(cpu_freq_drop_max)"},
    {"stability.<level>.temperature_rise", "\xC2\xB0" "C", B::lower, false, "", 0, "", "",
     "the largest rise of a thermal zone from the window's start (temperature_rise_max)"},
    {"stability.<level>.throttle_increase", "1", B::lower, false, "", 0, "", "",
     "thermal throttle events counted on the workload's CPUs during the window (throttle_increase_max)"},
    {"stability.<level>.other_cpu_share", "1", B::lower, false, "", 0, "", "",
     "CPU time not the harness's own (steal included) as a share of the workload's CPUs, in the worst interval "
     "between two readings (other_cpu_share_max)"},
    {"stability.<level>.steal_share", "1", B::lower, false, "", 0, "", "",
     "the hypervisor's steal as a share of the workload's CPUs, in the worst interval between two readings"},
};

// A level's table followed by the stability rows with its name in them.
std::vector<CatalogueEntry> with_stability_rows(Level level, std::span<const CatalogueEntry> table) {
  std::vector<CatalogueEntry> t(table.begin(), table.end());
  for (CatalogueEntry e : kStabilityRows) {
    std::string name(e.name);
    name.replace(name.find("<level>"), 7, level_name(level));
    e.name = keep(std::move(name));
    t.push_back(e);
  }
  return t;
}

// A paired figure's two entries in a run with a same-run reference:
// "reference.<name>" (the reference's own figure) and "vs_reference.<name>"
// (the rounds' ratios candidate / reference and their geometric mean); `what`
// says what the figure is.
void add_paired_entries(std::vector<CatalogueEntry>& t, const CatalogueEntry& e, std::string_view what) {
  CatalogueEntry reference = e;
  reference.name = keep("reference." + std::string(e.name));
  reference.expect = "";
  reference.forms = kNoExpectation;
  reference.expect_table = "";
  reference.description = keep("the same-run reference's " + std::string(what));
  reference.series = Series::metric;
  reference.repetitions_in_order = false;
  t.push_back(reference);
  CatalogueEntry ratio = reference;
  ratio.name = keep("vs_reference." + std::string(e.name));
  ratio.unit = "1";
  ratio.series = Series::both;
  ratio.description = keep("candidate / reference, a ratio per round (the samples) of " + std::string(what) +
                           "; the metric is their geometric mean (judged as paired rounds)");
  t.push_back(ratio);
}

// Level 2's table; with a same-run reference, each counter and formula is
// paired too (its windows alternate with the reference's).
std::span<const CatalogueEntry> counters_entries() {
  static const std::vector<CatalogueEntry> table = [] {
    std::vector<CatalogueEntry> t(std::begin(kCountersMetrics), std::end(kCountersMetrics));
    for (const CatalogueEntry& e : kCountersMetrics)
      if (e.name == "counter.<name>")
        add_paired_entries(t, e, "counter delta or group metric over its windows (or level 4's blocks) of "
                                 "the paired rounds (in a round's ratio: per iteration)");
    return with_stability_rows(Level::counters, t);
  }();
  return table;
}

// Level 1's table; with a same-run reference, a kernel's achieved op/s is
// paired (the kernel and its reference timed once a round), and the
// reference's time is shown beside it. They stand before the kernel's own
// rows: "<kernel>.achieved" would match "vs_reference.gemm.achieved" too.
std::span<const CatalogueEntry> roofline_entries() {
  static const std::vector<CatalogueEntry> table = [] {
    std::vector<CatalogueEntry> paired;
    for (const CatalogueEntry& e : kRooflineMetrics) {
      if (e.name == "<kernel>.achieved") {
        add_paired_entries(paired, e, "a kernel's flops / time, each side's own flops (in a round's ratio: its "
                                      "times of the round)");
      } else if (e.name == "<kernel>.time") {
        CatalogueEntry reference = e;
        reference.name = "reference.<kernel>.time";
        reference.series = Series::metric;
        reference.repetitions_in_order = false;
        reference.description = "the time of a kernel's same-run reference: the median of its rounds";
        paired.push_back(reference);
      }
    }
    std::vector<CatalogueEntry> t;
    for (const CatalogueEntry& e : kRooflineMetrics) {
      if (e.name == "<kernel>.flops") t.insert(t.end(), paired.begin(), paired.end());
      t.push_back(e);
    }
    return with_stability_rows(Level::roofline, t);
  }();
  return table;
}

// Level 4's table: the first condition's metrics, each again under
// "load.<load>." for the other conditions (no expectation keys there); with a
// same-run reference, the paired ones of each condition (the reference's own
// figure and the rounds' ratios); then the baseline-relative ones.
std::span<const CatalogueEntry> latency_entries() {
  static const std::vector<CatalogueEntry> table = [] {
    std::vector<CatalogueEntry> t(std::begin(kLatencyCondition), std::end(kLatencyCondition));
    std::vector<CatalogueEntry> conditions(std::begin(kLatencyCondition), std::end(kLatencyCondition));
    for (const CatalogueEntry& e : kLatencyCondition) {
      CatalogueEntry loaded = e;
      loaded.name = keep("load.<load>." + std::string(e.name));
      loaded.expect = "";
      loaded.forms = kNoExpectation;
      loaded.expect_table = "";
      loaded.description = keep(std::string(e.description) + ", under another load condition");
      t.push_back(loaded);
      conditions.push_back(loaded);
    }
    for (const CatalogueEntry& e : conditions)
      if (is_paired_latency_statistic(e.name)) add_paired_entries(t, e, e.description);
    t.insert(t.end(), std::begin(kLatencyBaseline), std::end(kLatencyBaseline));
    return with_stability_rows(Level::latency, t);
  }();
  return table;
}

bool series_fits(const CatalogueEntry& e, Series s) { return e.series == Series::both || e.series == s; }

bool matches_from(std::string_view p, std::string_view n) {
  if (p.empty()) return n.empty();
  if (p.front() == '<') {
    const std::size_t close = p.find('>');
    if (close == std::string_view::npos) return p == n;
    const std::string_view rest = p.substr(close + 1);
    for (std::size_t take = 1; take <= n.size(); ++take)
      if (matches_from(rest, n.substr(take))) return true;
    return false;
  }
  const std::size_t lit = std::min(p.find('<'), p.size());
  if (n.substr(0, lit) != p.substr(0, lit)) return false;
  return matches_from(p.substr(lit), n.substr(lit));
}

bool unit_allowed(const CatalogueEntry& e, std::string_view unit) {
  if (e.unit == "*") return true;
  std::string_view rest = e.unit;
  while (true) {
    const std::size_t bar = rest.find('|');
    if (rest.substr(0, bar) == unit) return true;
    if (bar == std::string_view::npos) return false;
    rest = rest.substr(bar + 1);
  }
}

std::string default_unit(const CatalogueEntry& e) {
  if (e.unit == "*") return "";
  return std::string(e.unit.substr(0, e.unit.find('|')));
}

const CatalogueEntry& entry_or_throw(Level level, std::string_view name, Series series) {
  const CatalogueEntry* e = find_catalogue_entry(level, name, series);
  if (!e)
    throw std::logic_error(
        fmt::format("{} {} \"{}\" is not in the metric catalogue (harness/model/metric_catalogue.cc)",
                    level_name(level), series == Series::samples ? "sample set" : "metric", name));
  return *e;
}

// The unit given where the row allows it, else the row's (its first
// alternative: "1/J" for efficiency without tokens).
std::string resolve_unit(const CatalogueEntry& e, Level level, std::string_view name, std::string_view unit) {
  if (unit.empty()) return default_unit(e);
  if (!unit_allowed(e, unit))
    throw std::logic_error(fmt::format("{} metric \"{}\": unit \"{}\" where the catalogue says \"{}\"",
                                       level_name(level), name, unit, e.unit));
  return std::string(unit);
}

Better resolve_better(const CatalogueEntry& e, std::optional<Better> better) {
  return e.better_from_source && better ? *better : e.better;
}

std::mutex lookups_mutex;
std::vector<CatalogueLookup>& lookups() {
  static std::vector<CatalogueLookup> v;
  return v;
}

}  // namespace

std::span<const CatalogueEntry> metric_catalogue(Level level) {
  switch (level) {
    case Level::roofline:
      return roofline_entries();
    case Level::counters:
      return counters_entries();
    case Level::ddr:
      return kDdrMetrics;
    case Level::latency:
      return latency_entries();
    case Level::accuracy:
      return kAccuracyMetrics;
  }
  return {};
}

std::span<const CatalogueEntry> latency_condition_catalogue() { return kLatencyCondition; }

bool is_paired_latency_statistic(std::string_view name) {
  if (name.rfind("load.<load>.", 0) == 0) name.remove_prefix(std::string_view("load.<load>.").size());
  for (std::string_view paired : kPairedLatencyStatistics)
    if (name == paired) return true;
  return false;
}

bool name_matches(std::string_view pattern, std::string_view name) { return matches_from(pattern, name); }

// The lookups repeat for every metric of every report (`harness publish`
// renders thousands of reports of the same names) and a pattern lookup scans
// its level's table matching placeholders; the catalogue is a constant table,
// so each answer is kept per thread, bounded by forgetting everything past
// kMaxRemembered names.
constexpr std::size_t kMaxRemembered = 1 << 16;

const CatalogueEntry* search_catalogue(Level level, std::string_view name, Series series) {
  const std::span<const CatalogueEntry> table = metric_catalogue(level);
  for (const CatalogueEntry& e : table)
    if (!e.is_pattern() && e.name == name && series_fits(e, series)) return &e;
  for (const CatalogueEntry& e : table)
    if (e.is_pattern() && series_fits(e, series) && name_matches(e.name, name)) return &e;
  return nullptr;
}

const CatalogueEntry* find_catalogue_entry(Level level, std::string_view name, Series series) {
  thread_local std::unordered_map<std::string, const CatalogueEntry*> seen;
  std::string key = fmt::format("{},{},", static_cast<int>(level), static_cast<int>(series));
  key += name;
  if (auto it = seen.find(key); it != seen.end()) return it->second;
  if (seen.size() >= kMaxRemembered) seen.clear();
  const CatalogueEntry* e = search_catalogue(level, name, series);
  seen.emplace(std::move(key), e);
  return e;
}

const CatalogueEntry* find_catalogue_entry(std::string_view name, Series series) {
  for (Level l : kAllLevels)
    for (const CatalogueEntry& e : metric_catalogue(l))
      if (!e.is_pattern() && e.name == name && series_fits(e, series)) return &e;
  for (Level l : kAllLevels)
    if (const CatalogueEntry* e = find_catalogue_entry(l, name, series)) return e;
  return nullptr;
}

const CatalogueEntry& catalogue_pattern(std::string_view pattern) {
  // Each pattern is recorded as looked up on its first lookup in a thread;
  // later ones are answered from what that thread has seen.
  thread_local std::unordered_map<std::string, const CatalogueEntry*> seen;
  if (auto it = seen.find(std::string(pattern)); it != seen.end()) return *it->second;
  if (seen.size() >= kMaxRemembered) seen.clear();
  for (Level l : kAllLevels)
    for (const CatalogueEntry& e : metric_catalogue(l))
      if (e.name == pattern) {
        std::lock_guard<std::mutex> lock(lookups_mutex);
        auto& v = lookups();
        if (std::none_of(v.begin(), v.end(), [&](const CatalogueLookup& x) { return x.pattern == pattern; }))
          v.push_back({l, std::string(pattern)});
        seen.emplace(std::string(pattern), &e);
        return e;
      }
  throw std::logic_error(fmt::format(
      "report looks up \"{}\", which is not in the metric catalogue (harness/model/metric_catalogue.cc)", pattern));
}

std::vector<CatalogueLookup> catalogue_lookups_so_far() {
  std::lock_guard<std::mutex> lock(lookups_mutex);
  return lookups();
}

std::optional<std::string> placeholder_value(std::string_view pattern, std::string_view name) {
  const std::size_t open = pattern.find('<'), close = pattern.find('>');
  if (open == std::string_view::npos || close == std::string_view::npos) return std::nullopt;
  const std::string_view head = pattern.substr(0, open), tail = pattern.substr(close + 1);
  if (name.size() <= head.size() + tail.size()) return std::nullopt;
  if (name.substr(0, head.size()) != head || name.substr(name.size() - tail.size()) != tail) return std::nullopt;
  return std::string(name.substr(head.size(), name.size() - head.size() - tail.size()));
}

std::string instance_name(std::string_view pattern, std::initializer_list<std::string_view> parts) {
  std::string out;
  auto part = parts.begin();
  while (!pattern.empty()) {
    const std::size_t open = pattern.find('<');
    out += pattern.substr(0, open);
    if (open == std::string_view::npos) break;
    const std::size_t close = pattern.find('>', open);
    if (part == parts.end()) throw std::logic_error(fmt::format("instance_name: too few parts for \"{}\"", pattern));
    out += *part++;
    pattern = close == std::string_view::npos ? std::string_view{} : pattern.substr(close + 1);
  }
  return out;
}

Metric catalogued_metric(Level level, std::string name, double value, Provenance provenance, std::string source,
                         std::string text, std::string_view unit, std::optional<Better> better) {
  const CatalogueEntry& e = entry_or_throw(level, name, Series::metric);
  std::string u = resolve_unit(e, level, name, unit);
  return Metric::known(level, std::move(name), value, std::move(u), provenance, std::move(source),
                       resolve_better(e, better), std::move(text));
}

Metric catalogued_missing(Level level, std::string name, std::string reason, std::string_view unit,
                          std::optional<Better> better) {
  const CatalogueEntry& e = entry_or_throw(level, name, Series::metric);
  std::string u = resolve_unit(e, level, name, unit);
  return Metric::missing(level, std::move(name), std::move(u), std::move(reason), resolve_better(e, better));
}

SampleSet catalogued_samples(Level level, std::string name, Provenance provenance, std::string source,
                             std::vector<double> values, std::string_view unit, std::optional<Better> better) {
  const CatalogueEntry& e = entry_or_throw(level, name, Series::samples);
  SampleSet s;
  s.level = level;
  s.unit = resolve_unit(e, level, name, unit);
  s.name = std::move(name);
  s.provenance = provenance;
  s.source = std::move(source);
  s.better = resolve_better(e, better);
  s.values = std::move(values);
  return s;
}

std::vector<std::string> catalogue_violations(const Analysis& analysis) {
  std::vector<std::string> out;
  auto check = [&](Level level, const std::string& name, const std::string& unit, Better better, bool missing,
                   Series series) {
    const CatalogueEntry* e = find_catalogue_entry(level, name, series);
    if (!e) {
      out.push_back(fmt::format("{}: {} (not in the catalogue)", level_name(level), name));
      return;
    }
    const bool unit_ok = unit_allowed(*e, unit) ||
                         (missing && unit.empty() && (e->unit == "*" || e->unit.find('|') != std::string_view::npos));
    if (!unit_ok)
      out.push_back(fmt::format("{}: {} has unit \"{}\", the catalogue ({}) says \"{}\"", level_name(level), name, unit,
                                e->name, e->unit));
    if (!e->better_from_source && better != e->better)
      out.push_back(fmt::format("{}: {} is better {}, the catalogue ({}) says {}", level_name(level), name,
                                better_name(better), e->name, better_name(e->better)));
  };
  for (const Metric& m : analysis.metrics) check(m.level, m.name, m.unit, m.better, !m.value, Series::metric);
  for (const SampleSet& s : analysis.samples) check(s.level, s.name, s.unit, s.better, false, Series::samples);
  return out;
}

std::vector<std::string> CatalogueEntry::expectation_keys() const {
  std::vector<std::string> keys;
  if (expect.empty()) return keys;
  const std::string s(expect);
  if (forms & kExpectBounds) {
    keys.push_back(s + "_min");
    keys.push_back(s + "_max");
  }
  if (forms & kExpectEquals) keys.push_back(s);
  if (forms & kExpectVsBaseline) keys.push_back(s + "_vs_baseline");
  if (forms & kExpectGainMin) keys.push_back(s + "_gain_min");
  if (forms & kExpectIncreased) keys.push_back(s + "_increased");
  if (forms & kExpectFlag) keys.push_back(s);
  if (forms & kExpectBaselineChange) {
    keys.push_back("baseline." + s + "_drop_min");
    keys.push_back("baseline." + s + "_rise_max");
    keys.push_back("baseline." + s + "_follows");
  }
  if (forms & kExpectKey) keys.push_back(s);
  if (forms & kExpectDropMax) {
    std::string drop = s;
    if (std::size_t at = drop.find("_min"); at != std::string::npos) drop.replace(at, 4, "_drop_max");
    keys.push_back("baseline." + drop);
  }
  return keys;
}

std::string CatalogueEntry::table_of_keys(Level level) const {
  if (!expect_table.empty()) return std::string(expect_table);
  return fmt::format("[{}.expect]", level_name(level));
}

}  // namespace harness
