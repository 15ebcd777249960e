#include <fmt/format.h>

#include "harness/scenario/compare_config.h"
#include "harness/scenario/toml_reader.h"

namespace harness {
namespace {

// A relative threshold: 0.05 is 5 %. Zero would call every wobble a change.
std::optional<double> read_threshold(TableReader& r, std::string_view key) {
  std::optional<double> v = r.number(key);
  if (v && !(*v > 0 && *v < 10)) {
    r.fail_at(key, "must be a relative change greater than 0 and below 10 (0.05 is 5 %)");
    return std::nullopt;
  }
  return v;
}

}  // namespace

CompareConfig read_compare_section(TableReader& r) {
  CompareConfig c;
  if (auto a = r.number("alpha")) {
    if (*a > 0 && *a < 1) c.alpha = *a;
    else r.fail_at("alpha", "must be between 0 and 1 (exclusive)");
  }
  if (auto a = r.number("power")) {
    if (*a > 0.5 && *a < 1) c.power = *a;
    else r.fail_at("power", "must be above 0.5 and below 1 (0.8 is the usual)");
  }
  if (auto m = r.choice("method", {"holm", "bh", "none"})) c.method = *correction_from_name(*m);
  if (auto t = read_threshold(r, "default_threshold")) c.default_threshold = *t;
  if (auto t = read_threshold(r, "sample_threshold")) c.sample_threshold = *t;
  if (auto t = read_threshold(r, "paired_threshold")) c.paired_threshold = *t;
  if (auto n = r.integer("min_rounds", 2, 100'000)) c.min_rounds = static_cast<std::size_t>(*n);
  if (auto names = r.string_array("gating")) c.gating = *names;
  if (auto n = r.integer("max_rounds", 0, 100'000)) c.max_rounds = static_cast<std::size_t>(*n);
  if (auto d = r.quantity("time_budget", Dimension::time)) c.time_budget_s = *d;
  if (auto n = r.integer("min_samples", 3, 1'000'000)) c.min_samples = static_cast<std::size_t>(*n);
  if (auto n = r.integer("history_runs", 3, 100'000)) c.history_runs = static_cast<std::size_t>(*n);
  if (auto n = r.integer("min_history_runs", 3, 100'000)) c.min_history_runs = static_cast<std::size_t>(*n);
  if (auto n = r.integer("min_baseline_runs", 3, 100'000)) c.min_baseline_runs = static_cast<std::size_t>(*n);
  if (r.ok() && c.min_history_runs > c.history_runs) {
    r.fail_at("min_history_runs", fmt::format("must not exceed history_runs ({})", c.history_runs));
  }
  if (auto names = r.string_array("ignore")) c.ignore.insert(names->begin(), names->end());
  if (const toml::table* t = r.table("metric_threshold")) {
    TableReader mr(r.context(), *t, fmt::format("{}.metric_threshold", r.name()));
    for (auto&& [name, value] : *t) {
      if (auto v = read_threshold(mr, name.str())) c.metric_threshold[std::string(name.str())] = *v;
    }
    (void)mr.finish();
  }
  return c;
}

}  // namespace harness
