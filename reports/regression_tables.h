// Seed 001's three regression tables (section 6.4: "bandwidth regression,
// compute regression, op latency regression"), one column per night: what a
// lab engineer runs first on a new chip or toolchain. The rows are picked from
// the stored metrics by name, the columns are the runs of one scenario on one
// rig, oldest first. Pure: the caller loads the history points.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/store/store.h"

namespace harness {

enum class RegressionTableKind { bandwidth, compute, latency };

struct RegressionTableSpec {
  RegressionTableKind kind;
  std::string_view name;   // "bandwidth", as --table takes it
  std::string_view title;  // "bandwidth regression"
  std::string_view rows;   // which metrics, in words (for --help and the table's header)
};
// The one table of the tables.
const std::vector<RegressionTableSpec>& regression_table_specs();
const RegressionTableSpec* find_regression_table(std::string_view name);

// Where `metric` sorts in the table (smaller first), or nothing when it is
// not one of its rows: sequential before random 4 KiB before the burst sweep
// by burst size; a precision's ceiling before its microbenchmarks; kernels
// and layers by name.
std::optional<int> regression_row_rank(RegressionTableKind kind, std::string_view metric);

struct RegressionColumn {
  std::int64_t run_id = 0;
  std::string started_at;
  std::string origin;
};

struct RegressionRow {
  std::string metric, unit;
  std::vector<std::optional<double>> values;  // one per column; absent: unavailable or not in that run
};

// One table for one (scenario, rig) series.
struct RegressionTable {
  const RegressionTableSpec* spec = nullptr;
  std::string scenario, rig;
  std::vector<RegressionColumn> columns;
  std::vector<RegressionRow> rows;
};

// One metric's stored values, as Store::metric_history gives them.
struct MetricHistory {
  std::string metric;
  std::vector<HistoryPoint> points;
};

// Builds one table per (scenario, rig) from the history points of the rows'
// metrics, keeping the newest `nights` runs of each series.
std::vector<RegressionTable> build_regression_tables(const RegressionTableSpec& spec,
                                                      const std::vector<MetricHistory>& per_metric,
                                                      std::size_t nights);

std::string render_regression_tables_text(const std::vector<RegressionTable>& tables);
std::string render_regression_tables_markdown(const std::vector<RegressionTable>& tables);
nlohmann::json regression_tables_to_json(const std::vector<RegressionTable>& tables);
// An HTML fragment (one <h3> and <table class="regression"> per table), for
// `harness publish`; text is escaped.
std::string render_regression_tables_html(const std::vector<RegressionTable>& tables);

}  // namespace harness
