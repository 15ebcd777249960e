// libFuzzer target: `harness publish` into a folder whose site manifest
// (.publish-manifest.json) is the input, beside files an attacker planted:
// a symlink to a file outside, a folder, a file one level up. Publish must
// finish or give an error with a message, never crash, and never remove or
// write anything outside the folder's own regular files: the planted files
// and what they point at survive every input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "harness/store/store.h"
#include "reports/publish/publish.h"

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path root = fs::temp_directory_path() / ("harness-publish-fuzz-" + std::to_string(::getpid()));
  static std::optional<harness::Store> store;  // empty: publish reads no run, only the manifest and the folder
  if (!store) {
    fs::remove_all(root);
    fs::create_directories(root);
    harness::Result<harness::Store> opened = harness::Store::open((root / "runs.sqlite").string());
    if (!opened) __builtin_trap();
    store.emplace(std::move(*opened));
  }
  const fs::path site = root / "site", outside = root / "outside.html";
  fs::remove_all(site);
  fs::create_directories(site / "runs");
  fs::create_directories(site / "metrics" / "sub");
  std::ofstream(outside, std::ios::trunc) << "keep";
  std::ofstream(root / "beside.html", std::ios::trunc) << "keep";
  fs::create_symlink(outside, site / "runs" / "1.html");
  fs::create_symlink(outside, site / "index.html");
  std::ofstream(site / harness::kSiteManifestName, std::ios::binary) << std::string(reinterpret_cast<const char*>(data), size);

  harness::Result<harness::PublishSummary> s = harness::publish_site(*store, site.string(), {});
  if (!s && s.error().message.empty()) __builtin_trap();
  if (read(outside) != "keep" || read(root / "beside.html") != "keep") __builtin_trap();
  if (!fs::is_symlink(site / "runs" / "1.html") || !fs::is_directory(site / "metrics" / "sub")) __builtin_trap();
  return 0;
}
