// libFuzzer target: the publish series cache (reports/publish/series_cache.h),
// read from a site folder as untrusted bytes, must decode or return an
// error, never crash. The bytes are tried as a whole file and, since a
// mutated file rarely keeps its sha256, as the body of a file wrapped with
// a correct one (that is what reaches the string, run and metric tables and their
// columns).
// What decodes encodes and decodes again.
#include <cstdlib>
#include <string_view>

#include "reports/publish/series_cache.h"

namespace {

void check(std::string_view bytes) {
  harness::Result<harness::SeriesCache> c = harness::decode_series_cache(bytes, "fuzz.cache");
  if (!c) return;
  if (!harness::decode_series_cache(harness::encode_series_cache(c->key, c->runs, c->values), "again.cache"))
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check(bytes);
  check(harness::wrap_series_cache_body({"fuzz.sqlite", 6, "", "", 1 << 20, "digest"}, bytes));
  return 0;
}
