#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "probes/counters/factories.h"

namespace harness {
namespace {

// {"snapshots": [{"MEM_STALL_CYCLES": 1200, ...}, {...}]}: one object per
// reading, in the order the readings were taken.
class RecordedSource final : public CounterSource {
 public:
  RecordedSource(std::string path, std::vector<std::string> keys, nlohmann::json snapshots, std::string broken)
      : path_(std::move(path)), keys_(std::move(keys)), snapshots_(std::move(snapshots)), broken_(std::move(broken)) {}

  std::vector<CounterSample> read() override {
    std::vector<CounterSample> out;
    std::string why = broken_;
    if (why.empty() && next_ >= snapshots_.size()) {
      why = fmt::format("{} holds {} snapshots; reading {} has none", path_, snapshots_.size(), next_ + 1);
    }
    for (const std::string& key : keys_) {
      if (!why.empty()) {
        out.push_back(CounterSample::missing(why));
        continue;
      }
      const nlohmann::json& snap = snapshots_[next_];
      if (!snap.is_object() || !snap.contains(key)) {
        out.push_back(CounterSample::missing(fmt::format("{}: snapshot {} has no '{}'", path_, next_ + 1, key)));
      } else if (!snap[key].is_number_unsigned()) {
        out.push_back(CounterSample::missing(
            fmt::format("{}: snapshot {}: '{}' is not an unsigned integer", path_, next_ + 1, key)));
      } else {
        CounterSample s;
        s.value = json_integer<std::uint64_t>(snap[key]);
        out.push_back(s);
      }
    }
    ++next_;
    return out;
  }

  std::string describe() const override { return "recorded:" + path_; }

 private:
  std::string path_;
  std::vector<std::string> keys_;
  nlohmann::json snapshots_;
  std::string broken_;
  std::size_t next_ = 0;
};

}  // namespace

Result<std::unique_ptr<CounterSource>> make_recorded_source(const CounterSourceSpec& spec,
                                                            const std::vector<CounterSpec>& counters,
                                                            const CounterSourceOptions&) {
  std::vector<std::string> keys;
  for (const CounterSpec& c : counters) keys.push_back(c.key.empty() ? c.name : c.key);
  std::string broken;
  nlohmann::json snapshots = nlohmann::json::array();
  Result<nlohmann::json> doc =
      read_bounded_json_file(spec.path, {.bytes = kMaxCounterSnapshotBytes}, "counter snapshots");
  if (!doc) {
    broken = doc.error().message;
  } else if (!doc->is_object() || !doc->contains("snapshots") || !(*doc)["snapshots"].is_array()) {
    broken = fmt::format("{}: expected a JSON object with a \"snapshots\" array", spec.path);
  } else {
    snapshots = std::move((*doc)["snapshots"]);
  }
  return std::unique_ptr<CounterSource>(
      std::make_unique<RecordedSource>(spec.path, std::move(keys), std::move(snapshots), std::move(broken)));
}

}  // namespace harness
