// libFuzzer target: the one ZIP reader (probes/zip) and both its users must
// return an error, never crash, read out of bounds or inflate without bound,
// on any bytes: the archive's entries located, held to limits and read
// through; the same bytes as a sigrok session (.sr) and as an .npz tensor
// archive, each streamed to its end.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "probes/capture/srzip_reader.h"
#include "probes/zip/zip_reader.h"
#include "tests/fuzz/bounded_sink.h"
#include "tests/fuzz/read_npz.h"

namespace {

void read_archive(std::string_view bytes) {
  harness::MemoryByteSource src(bytes);
  harness::Result<harness::zip::Archive> archive = harness::zip::Archive::open(src, "fuzz.zip", "a ZIP archive");
  if (!archive) return;
  std::vector<const harness::zip::Entry*> wanted;
  for (const harness::zip::Entry& e : archive->entries()) wanted.push_back(&e);
  harness::Result<std::vector<harness::zip::Entry>> located = archive->locate_all(wanted);
  if (!located) return;
  harness::zip::InflateLimits limits;
  limits.entry_bytes = std::uint64_t{1} << 22;
  limits.total_bytes = std::uint64_t{1} << 23;
  if (!archive->check_inflated(*located, limits)) return;
  harness::zip::InflateScratch scratch;
  std::vector<std::uint8_t> block(4096);
  for (const harness::zip::Entry& e : *located) {
    harness::zip::EntryReader reader(src, e, "fuzz.zip: " + e.name, scratch, 4096);
    for (;;) {
      harness::Result<std::size_t> n = reader.read(block.data(), block.size());
      if (!n || *n == 0) break;
    }
  }
}

void read_sr(std::string_view bytes) {
  harness::MemoryByteSource source(bytes);
  harness::BoundedSink sink;
  harness::SrzipOptions options;
  options.read_block = 4096;
  options.sink_block = 4096;
  options.limits = harness::fuzz_limits();
  options.jobs = 1;
  (void)harness::read_srzip(source, "fuzz.sr", sink, options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  read_archive(bytes);
  read_sr(bytes);
  harness::read_npz_through(bytes);
  return 0;
}
