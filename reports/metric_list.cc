#include "reports/metric_list.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "reports/markdown.h"

namespace harness {
namespace {

std::string unit_text(const CatalogueEntry& e) {
  if (e.unit == "*") return "(source)";
  if (e.unit.empty()) return "-";
  return std::string(e.unit);
}

std::string better_text(const CatalogueEntry& e) {
  if (e.better_from_source) return "(source)";
  return std::string(better_name(e.better));
}

std::string series_text(const CatalogueEntry& e) {
  switch (e.series) {
    case Series::metric:
      return "";
    case Series::samples:
      return "samples";
    case Series::both:
      return "metric + samples";
  }
  return "";
}

std::string keys_text(const CatalogueEntry& e) {
  std::string out;
  for (const std::string& k : e.expectation_keys()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

std::vector<Level> levels_of(std::optional<Level> level) {
  if (level) return {*level};
  return {std::begin(kAllLevels), std::end(kAllLevels)};
}

}  // namespace

std::string render_metric_list_text(std::optional<Level> level) {
  std::string out;
  for (Level l : levels_of(level)) {
    const auto table = metric_catalogue(l);
    std::size_t w_name = 4, w_unit = 4;
    for (const CatalogueEntry& e : table) {
      w_name = std::max(w_name, e.name.size());
      w_unit = std::max(w_unit, unit_text(e).size());
    }
    if (!out.empty()) out += "\n";
    out += fmt::format("level {}: {}\n", static_cast<int>(l), level_name(l));
    out += fmt::format("  {:<{}}  {:<{}}  {:<8}  {}\n", "name", w_name, "unit", w_unit, "better", "what");
    for (const CatalogueEntry& e : table) {
      std::string what(e.description);
      if (e.series != Series::metric) what += " [" + series_text(e) + "]";
      out += fmt::format("  {:<{}}  {:<{}}  {:<8}  {}\n", e.name, w_name, unit_text(e), w_unit, better_text(e), what);
      if (!e.expect.empty())
        out += fmt::format("  {:<{}}  expect in {}: {}\n", "", w_name + w_unit + 12, e.table_of_keys(l), keys_text(e));
    }
  }
  return out;
}

nlohmann::json metric_list_to_json(std::optional<Level> level) {
  nlohmann::json out = nlohmann::json::array();
  for (Level l : levels_of(level)) {
    for (const CatalogueEntry& e : metric_catalogue(l)) {
      nlohmann::json j = {
          {"level", level_name(l)},
          {"name", e.name},
          {"pattern", e.is_pattern()},
          {"unit", e.unit == "*" ? nlohmann::json(nullptr) : nlohmann::json(e.unit)},
          {"better", e.better_from_source ? nlohmann::json(nullptr) : nlohmann::json(better_name(e.better))},
          {"series", e.series == Series::metric    ? "metric"
                     : e.series == Series::samples ? "samples"
                                                   : "both"},
          {"description", e.description},
          {"expect", nlohmann::json::array()}};
      if (!e.expect.empty()) {
        j["expect_table"] = e.table_of_keys(l);
        j["expect"] = e.expectation_keys();
      }
      out.push_back(std::move(j));
    }
  }
  return out;
}

std::string render_metric_list_markdown() {
  std::string out;
  for (Level l : kAllLevels) {
    out += fmt::format("### Level {}: {}\n\n", static_cast<int>(l), level_name(l));
    out += "| name | unit | better | expectation keys | what |\n|---|---|---|---|---|\n";
    for (const CatalogueEntry& e : metric_catalogue(l)) {
      std::string what(e.description);
      if (e.series != Series::metric) what += " (" + series_text(e) + ")";
      std::string keys = e.expect.empty() ? "" : e.table_of_keys(l) + ": " + keys_text(e);
      out += fmt::format("| `{}` | {} | {} | {} | {} |\n", e.name, markdown_text(unit_text(e)), better_text(e),
                         markdown_text(keys), markdown_text(what));
    }
    out += "\n";
  }
  return out;
}

}  // namespace harness
