#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "harness/scenario/stability_config.h"
#include "harness/scenario/toml_reader.h"

namespace harness {
namespace {

// A share limit: 0 would make every window unstable.
std::optional<double> read_limit_share(TableReader& r, std::string_view key) {
  std::optional<double> v = r.fraction(key);
  if (v && *v == 0) {
    r.fail_at(key, "must be above 0 % (no window stays exactly the same)");
    return std::nullopt;
  }
  return v;
}

// A temperature difference with its unit: "3 °C" or "3 K".
std::optional<double> read_temperature_rise(TableReader& r, std::string_view key) {
  const toml::node* n = r.node(key);
  if (!n) return std::nullopt;
  const auto* text = n->as_string();
  const std::string s = text ? std::string(text->get()) : std::string();
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  std::string unit(end, s.data() + s.size());
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  if (!text || ec != std::errc() || end == s.data() || (unit != "\xC2\xB0" "C" && unit != "K")) {
    r.fail_at(key, fmt::format("must be a temperature rise written with its unit, such as \"3 °C\" or \"3 K\", got {}",
                               text ? "\"" + s + "\"" : std::string(toml_type_noun(n->type()))));
    return std::nullopt;
  }
  if (!std::isfinite(v) || !(v > 0)) {
    r.fail_at(key, fmt::format("must be above 0 °C, got \"{}\"", s));
    return std::nullopt;
  }
  return v;
}

}  // namespace

StabilityConfig read_stability_section(TableReader& r) {
  StabilityConfig c;
  if (auto on = r.boolean("enabled")) c.enabled = *on;
  if (auto t = r.quantity("interval", Dimension::time)) {
    if (*t != 0 && *t < 1) r.fail_at("interval", "must be 0 s (readings only at a window's ends) or at least 1 s");
    else c.interval_s = *t;
  }
  if (auto v = read_limit_share(r, "canary_change_max")) c.canary_change_max = *v;
  if (auto v = read_limit_share(r, "cpu_freq_drop_max")) c.cpu_freq_drop_max = *v;
  if (auto v = read_limit_share(r, "other_cpu_share_max")) c.other_cpu_share_max = *v;
  if (auto v = read_temperature_rise(r, "temperature_rise_max")) c.temperature_rise_max_c = *v;
  if (auto n = r.integer("throttle_increase_max", 0, 1'000'000'000)) c.throttle_increase_max = static_cast<std::uint64_t>(*n);
  return c;
}

}  // namespace harness
