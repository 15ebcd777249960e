// libFuzzer target: a recording bundle built around the input must load
// and replay, or give an error with a message; never a crash, a hang, an
// abort on a deeply nested document, or a read outside the bundle.
// The first byte chooses what the rest of the input is:
//   even: manifest.json, beside a valid scenario.toml and recording.json;
//   odd:  recording.json, listed by a manifest this target writes with the
//         right size and sha256, so that the recording's own checks run.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "harness/bundle/bundle.h"
#include "harness/bundle/replay.h"

namespace {

const char* kScenario =
    "[scenario]\nname = \"fuzz\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
    "[latency]\n";
const char* kRecording = R"({"format_version": 1, "latency": {"source": "builtin:vector_add", "conditions": []}})";

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

nlohmann::json entry(const std::string& path, const std::string& role, const std::string& text) {
  return {{"path", path}, {"role", role}, {"size", text.size()}, {"sha256", harness::sha256_hex(text)}};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("harness-bundle-fuzz-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool fuzz_recording = (data[0] & 1) != 0;
  const std::string recording = fuzz_recording ? rest : std::string(kRecording);
  write(dir / "scenario.toml", kScenario);
  write(dir / "recording.json", recording);
  if (fuzz_recording) {
    nlohmann::json m = {{"format", "harness-recording"},
                        {"format_version", 1},
                        {"files", {entry("scenario.toml", "scenario", kScenario),
                                   entry("recording.json", "recording", recording)}}};
    write(dir / "manifest.json", m.dump());
  } else {
    write(dir / "manifest.json", rest);
  }
  harness::BundleLimits limits;
  limits.max_file_bytes = 1 << 20;  // the fuzzer cannot make more; a lie about a size must not allocate it
  limits.max_total_bytes = 4 << 20;
  harness::Result<harness::LoadedBundle> b = harness::load_bundle(dir.string(), limits);
  if (!b) {
    if (b.error().message.empty()) __builtin_trap();
    return 0;
  }
  harness::Result<harness::RunRecord> run = harness::replay_bundle(*b);
  if (!run && run.error().message.empty()) __builtin_trap();
  return 0;
}
