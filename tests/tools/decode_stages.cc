// decode_stages CAPTURE [STANDARD [RUNS]]: the DDR decoder's stages timed
// apart, from memory, in BusDecoder's slices (kDecodeSlice): sampling (clock
// edges, strobe estimate, command cycles), groups to commands, and commands
// to the bus statistics. Each stage runs RUNS times (default 5) on what the
// stage before made once; the least thread CPU time is printed per 100M
// samples. The statistics are timed with the commands before them (groups to
// commands to statistics, less groups to commands): alone, on commands
// made long before, they measure differently. A check line (command counts
// and figures) tells whether a change decodes the same. For work on the
// decoder's speed (scripts/bench-decode --stages); it holds the capture,
// its groups and its commands in memory (about 4 bytes per sample for an
// LPDDR4 capture of 2-byte samples).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/base/cpu_time.h"
#include "harness/ddr/decoder.h"
#include "harness/ddr/metrics.h"
#include "probes/capture/capture.h"
#include "probes/capture/readers.h"

using namespace harness;
using namespace harness::ddr;

namespace {

// The least thread CPU seconds of `runs` calls of `stage`.
template <class Stage>
double least_seconds(int runs, Stage stage) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < runs; ++r) {
    const double t0 = thread_cpu_seconds();
    stage();
    best = std::min(best, thread_cpu_seconds() - t0);
  }
  return best;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "decode_stages: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: decode_stages CAPTURE [STANDARD [RUNS]]\n");
    return 2;
  }
  const std::string path = argv[1];
  DecodeOptions options;
  if (argc > 2) {
    const std::optional<Standard> standard = standard_from_name(argv[2]);
    if (!standard) return fail(fmt::format("unknown standard '{}'", argv[2]));
    options.standard = *standard;
  }
  const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;

  CaptureCollector collector;
  if (Status read = read_capture(path, ReadOptions{}, collector); !read) return fail(read.error().message);
  const Capture& capture = collector.capture();
  const CaptureHeader& header = capture.header;
  Result<BusLayout> layout = make_layout(options.standard, header.channels, options.roles, options.probes);
  if (!layout) return fail(layout.error().message);
  const auto window = static_cast<std::uint64_t>(std::max(1.0, std::round(options.window * header.samplerate)));
  const double period = 1 / header.samplerate;
  const std::uint64_t samples = capture.sample_count();
  const std::uint8_t* data = capture.data.data();

  // Each slice's groups and commands, made once for the stages after.
  struct Slice {
    std::vector<EdgeGroup> groups;
    std::vector<Command> commands;
  };
  std::vector<Slice> slices;
  Sampler kept(*layout, header.samplerate, window);
  for (std::uint64_t at = 0; at < samples; at += kDecodeSlice) {
    Slice& slice = slices.emplace_back();
    const std::size_t n = std::min<std::uint64_t>(kDecodeSlice, samples - at);
    if (Status fed = kept.feed(data + at * header.unitsize, n, header.unitsize, slice.groups); !fed)
      return fail(fed.error().message);
  }
  if (Status finished = kept.finish(); !finished) return fail(finished.error().message);
  {
    EdgeDecoder edges(kept.layout(), options);
    for (Slice& slice : slices) edges.add(slice.groups, period, slice.commands);
    edges.finish(slices.back().commands);
  }

  const double sampling = least_seconds(runs, [&] {
    Sampler sampler(*layout, header.samplerate, window);
    std::vector<EdgeGroup> groups;
    for (std::uint64_t at = 0; at < samples; at += kDecodeSlice) {
      groups.clear();
      (void)sampler.feed(data + at * header.unitsize, std::min<std::uint64_t>(kDecodeSlice, samples - at),
                         header.unitsize, groups);
    }
    (void)sampler.finish();
  });
  std::uint64_t commands = 0;
  const double to_commands = least_seconds(runs, [&] {
    EdgeDecoder edges(kept.layout(), options);
    std::vector<Command> out;
    commands = 0;
    for (const Slice& slice : slices) {
      out.clear();
      edges.add(slice.groups, period, out);
      commands += out.size();
    }
  });
  BusSummary summary;
  const double to_statistics = least_seconds(runs, [&] {
    EdgeDecoder edges(kept.layout(), options);
    BusStatistics statistics(BusModel{.standard = options.standard});
    std::vector<Command> out;
    for (const Slice& slice : slices) {
      out.clear();
      edges.add(slice.groups, period, out);
      statistics.on_commands(out);
    }
    out.clear();
    edges.finish(out);
    statistics.on_commands(out);
    BusTiming timing;
    timing.cycles = kept.stats().cycles;
    timing.tck = kept.stats().tck_samples * period;
    timing.duration = static_cast<double>(samples) * period;
    summary = statistics.finish(timing);
  });

  std::size_t groups = 0;
  for (const Slice& slice : slices) groups += slice.groups.size();
  const double per_100m = 1e8 / static_cast<double>(samples) * 1e3;  // ms per 100M samples, per second taken
  const double statistics = to_statistics - to_commands;
  const double sum = sampling + to_statistics;
  std::printf("capture: %llu samples of %u bytes, %s; %zu edge groups, %llu commands\n",
              static_cast<unsigned long long>(samples), header.unitsize,
              std::string(standard_name(options.standard)).c_str(), groups,
              static_cast<unsigned long long>(commands));
  std::printf("thread CPU per 100M samples, least of %d runs:\n", runs);
  std::printf("  sampling (clock edges, strobe estimate, command cycles)  %6.1f ms\n", sampling * per_100m);
  std::printf("  groups to commands                                       %6.1f ms\n", to_commands * per_100m);
  std::printf("  commands to statistics (with the commands, less them)    %6.1f ms\n", statistics * per_100m);
  std::printf("  decode + statistics                                      %6.1f ms (%.2f G samples/s)\n",
              sum * per_100m, static_cast<double>(samples) / sum / 1e9);
  std::printf("check: reads %llu writes %llu bytes %llu row hits %llu misses %llu conflicts %llu transactions %llu "
              "command activity %.9f\n",
              static_cast<unsigned long long>(summary.reads), static_cast<unsigned long long>(summary.writes),
              static_cast<unsigned long long>(summary.bytes()), static_cast<unsigned long long>(summary.row_hits),
              static_cast<unsigned long long>(summary.row_misses),
              static_cast<unsigned long long>(summary.row_conflicts),
              static_cast<unsigned long long>(summary.transactions), summary.dq_active_ratio_commands);
  return 0;
}
