// A counters recording (level 2's raw readings) as the agent sends it and
// the store keeps it, apart from the analysis so that the device agent
// (cmake/agent.cmake) links without the metric catalogue.
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/levels/counters.h"

namespace harness {
namespace {

// A reading's raw values that may be absent (null in the JSON), each once.
using OptionalValue = std::optional<std::uint64_t> CounterReading::*;
constexpr std::pair<const char*, OptionalValue> kOptionalValues[] = {
    {"before", &CounterReading::before},
    {"after", &CounterReading::after},
    {"delta", &CounterReading::delta},
    {"enabled_before", &CounterReading::enabled_before},
    {"enabled_after", &CounterReading::enabled_after},
    {"running_before", &CounterReading::running_before},
    {"running_after", &CounterReading::running_after}};

nlohmann::json reading_json(const CounterReading& c) {
  nlohmann::json e = {{"name", c.name},   {"source", c.source}, {"unit", c.unit},
                      {"width", c.width}, {"scale", c.scale},   {"unavailable", c.unavailable}};
  for (const auto& [key, member] : kOptionalValues)
    e[key] = (c.*member) ? nlohmann::json(*(c.*member)) : nlohmann::json(nullptr);
  e["between"] = c.between;
  if (!c.enabled_between.empty()) {
    e["enabled_between"] = c.enabled_between;
    e["running_between"] = c.running_between;
  }
  return e;
}

CounterReading reading_from_json(const nlohmann::json& e) {
  CounterReading c;
  c.name = e.at("name");
  c.source = e.at("source");
  c.unit = e.value("unit", "");
  c.width = e.value("width", 64);
  c.scale = e.value("scale", 1.0);
  c.unavailable = e.value("unavailable", "");
  for (const auto& [key, member] : kOptionalValues)
    if (e.contains(key) && !e.at(key).is_null()) c.*member = json_integer<std::uint64_t>(e.at(key));
  if (e.contains("between")) c.between = e.at("between").get<std::vector<std::uint64_t>>();
  if (e.contains("enabled_between")) c.enabled_between = e.at("enabled_between").get<std::vector<std::uint64_t>>();
  if (e.contains("running_between")) c.running_between = e.at("running_between").get<std::vector<std::uint64_t>>();
  return c;
}

}  // namespace

void to_json(nlohmann::json& j, const CountersRecording& r) {
  j = nlohmann::json::object();
  j["unavailable"] = r.unavailable;
  j["iterations"] = r.iterations;
  j["windows"] = r.windows;
  if (!r.window.empty()) j["window"] = r.window;
  if (!r.window_condition.empty()) j["window_condition"] = r.window_condition;
  if (!r.window_reason.empty()) j["window_reason"] = r.window_reason;
  if (!r.window_iterations.empty()) j["window_iterations"] = r.window_iterations;
  if (!r.window_sides.empty()) j["window_sides"] = r.window_sides;
  if (!r.window_sides.empty() || !r.blocks.empty()) j["pairing"] = r.pairing;
  j["groups"] = nlohmann::json::array();
  for (const RecordedCounterGroup& g : r.groups) {
    j["groups"].push_back({{"name", g.name}, {"path", g.path}, {"sha256", g.sha256}});
  }
  j["readings"] = nlohmann::json::array();
  for (const CounterReading& c : r.readings) j["readings"].push_back(reading_json(c));
  if (!r.blocks.empty()) {
    j["blocks"] = nlohmann::json::array();
    for (const CounterBlock& b : r.blocks) {
      nlohmann::json readings = nlohmann::json::array();
      for (const CounterReading& c : b.readings) readings.push_back(reading_json(c));
      j["blocks"].push_back({{"round", b.round}, {"side", b.side}, {"iterations", b.iterations}, {"readings", readings}});
    }
  }
}

void from_json(const nlohmann::json& j, CountersRecording& r) {
  r.unavailable = j.value("unavailable", "");
  r.iterations = j.value("iterations", std::int64_t{0});
  r.windows = j.value("windows", std::int64_t{0});
  if (j.contains("window_sides")) r.window_sides = j.at("window_sides").get<std::vector<std::string>>();
  r.window = j.value("window", "");
  r.window_condition = j.value("window_condition", "");
  r.window_reason = j.value("window_reason", "");
  if (j.contains("window_iterations"))
    for (const auto& n : j.at("window_iterations")) r.window_iterations.push_back(json_integer<std::int64_t>(n));
  r.pairing = j.value("pairing", "");
  if (j.contains("groups")) {
    for (const auto& g : j.at("groups")) {
      r.groups.push_back({g.value("name", ""), g.value("path", ""), g.value("sha256", "")});
    }
  }
  for (const auto& e : j.at("readings")) r.readings.push_back(reading_from_json(e));
  if (j.contains("blocks")) {
    for (const auto& b : j.at("blocks")) {
      CounterBlock block;
      block.round = json_integer<int>(b.at("round"));
      block.side = b.at("side");
      block.iterations = json_integer<std::int64_t>(b.at("iterations"));
      for (const auto& e : b.at("readings")) block.readings.push_back(reading_from_json(e));
      r.blocks.push_back(std::move(block));
    }
  }
}

std::int64_t window_end(std::int64_t iterations, std::int64_t windows, std::int64_t k) {
  // floor((k + 1) x iterations / windows) without the product, which a
  // recording's iterations could overflow.
  return (k + 1) * (iterations / windows) + (k + 1) * (iterations % windows) / windows;
}

}  // namespace harness
