// libFuzzer target: the DDR decoder (sampler, strobe estimate, command
// assembly, bus statistics) on arbitrary samples must return a result or an
// error, never crash. The first bytes choose the standard, the strobes and
// a declared preamble, and the chunk size the samples come in (the figures
// must not depend on it: the strobe estimate gathers frames of 64).
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
  DecodeOptions d;
  d.standard = standard;
  d.dqs_preamble = preamble;
  BusStatistics stats({standard, 16});
  BusDecoder decoder(d, stats);
  Status s = c.replay(decoder, chunk);
  if (s) {
    BusSummary summary = stats.finish(decoder.timing());
    if (summary.dq_active_ratio_dqs && !(*summary.dq_active_ratio_dqs >= 0 && *summary.dq_active_ratio_dqs <= 1))
      __builtin_trap();
  }
  return 0;
}
