// libFuzzer target: the DDR decoder (sampler, strobe estimate, command
// assembly, bus statistics) on arbitrary samples must return a result or an
// error, never crash. The first bytes choose the standard, the strobes and
// a declared preamble, and the chunk size the samples come in (the figures
// must not depend on it: the strobe estimate gathers frames of 64). For a
// quarter of the inputs the decode on two threads must give the same
// outcome, commands and statistics as on one.
#include <cstring>
#include <string>
#include <vector>

#include "harness/ddr/metrics.h"
#include "harness/ddr/synth.h"
#include "probes/capture/capture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace harness;
  using namespace harness::ddr;
  if (size < 4) return 0;
  const Standard standard = data[0] % 3 == 0 ? Standard::ddr4 : data[0] % 3 == 1 ? Standard::lpddr4 : Standard::lpddr5;
  SynthOptions names;
  names.standard = standard;
  names.dqs_channels = 1 + (data[1] & 1);
  Capture c;
  c.header.channels = synth_channels(names);
  c.header.samplerate = 1e9;
  c.header.unitsize = CaptureHeader::unitsize_for(c.header.channels.size());
  c.header.format = "fuzz";
  const std::size_t chunk = 1 + data[2] * 7u;
  const unsigned preamble = (data[1] >> 1) % 3;
  const std::uint8_t selector = data[1];
  data += 3;
  size -= 3;
  // Each input byte is a run: its low bits say how many samples repeat the
  // previous one (so that clocks can be slow enough to decode).
  std::vector<std::uint8_t> samples;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i + 1 < size && samples.size() < (std::size_t{1} << 22); i += 2) {
    value ^= static_cast<std::uint64_t>(data[i]) << (data[i + 1] % 16);
    const unsigned repeat = 1 + (data[i + 1] >> 4);
    for (unsigned k = 0; k < repeat; ++k) {
      const std::size_t at = samples.size();
      samples.resize(at + c.header.unitsize);
      std::memcpy(samples.data() + at, &value, c.header.unitsize);
    }
  }
  c.data = std::move(samples);
  struct Decoded {
    bool ok = false;
    std::string error;
    std::vector<Command> commands;
    std::uint64_t reads = 0, row_hits = 0, cycles = 0;
    double dq_active_ratio = 0;
  };
  auto decode = [&](bool two_threads) {
    DecodeOptions d;
    d.standard = standard;
    d.dqs_preamble = preamble;
    d.two_threads = two_threads;
    struct Sinks : CommandSink {
      explicit Sinks(Standard s) : stats({s, 16}) {}
      void on_commands(std::span<const Command> c) override {
        stats.on_commands(c);
        collected.on_commands(c);
      }
      BusStatistics stats;
      CommandCollector collected;
    } sinks(standard);
    BusDecoder decoder(d, sinks);
    Status s = c.replay(decoder, chunk);
    Decoded out;
    out.ok = s.ok();
    if (!s) {
      out.error = s.error().message;
      return out;
    }
    BusSummary summary = sinks.stats.finish(decoder.timing());
    if (summary.dq_active_ratio_dqs && !(*summary.dq_active_ratio_dqs >= 0 && *summary.dq_active_ratio_dqs <= 1))
      __builtin_trap();
    out.commands = std::move(sinks.collected.commands);
    out.reads = summary.reads;
    out.row_hits = summary.row_hits;
    out.cycles = decoder.timing().cycles;
    out.dq_active_ratio = summary.dq_active_ratio;
    return out;
  };
  const Decoded one = decode(false);
  if ((selector & 0x18) == 0x18) {
    const Decoded two = decode(true);
    if (two.ok != one.ok || two.error != one.error || two.commands != one.commands || two.reads != one.reads ||
        two.row_hits != one.row_hits || two.cycles != one.cycles ||
        std::memcmp(&two.dq_active_ratio, &one.dq_active_ratio, sizeof(double)) != 0)
      __builtin_trap();
  }
  return 0;
}
