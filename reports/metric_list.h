// `harness metrics`: the metric catalogue (harness/model/metric_catalogue.h)
// listed per level, the way `perf list` lists events: name, unit, which way is
// better, the expectation keys a scenario may write, one line of description.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/model/metric.h"

namespace harness {

// Every level, or only `level`.
std::string render_metric_list_text(std::optional<Level> level);
nlohmann::json metric_list_to_json(std::optional<Level> level);
// The tables of docs/parts/metrics.md (checked against it by a test).
std::string render_metric_list_markdown();

}  // namespace harness
