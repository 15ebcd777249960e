// libFuzzer target: the VCD reader must return an error, never crash.
#include <string>
#include <string_view>
#include <vector>

#include "probes/capture/capture.h"
#include "probes/capture/readers.h"
#include "tests/fuzz/bounded_sink.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness::BoundedSink sink;
  harness::ReadOptions options;
  options.limits = harness::fuzz_limits();
  // Half the inputs through a channel plan: the path of dumps with more than
  // 64 one-bit signals, and an idle-high channel.
  if (size > 0 && (data[size - 1] & 1))
    options.plan_channels = [](const std::vector<std::string>& names) -> harness::Result<harness::ChannelPlan> {
      harness::ChannelPlan p;
      for (unsigned i = 0; i < names.size() && p.keep.size() < 64; i += 2) p.keep.push_back(i);
      p.idle_high = {0};
      return p;
    };
  (void)harness::read_vcd(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.vcd", options, sink);
  return 0;
}
