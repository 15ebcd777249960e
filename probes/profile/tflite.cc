// TensorFlow Lite op profiling (benchmark_model --enable_op_profiling=true):
// the stats calculator's tables, as text (fields each after a tab, padded
// to a width; newer releases pad with spaces and drop [start]) or as CSV
// (--op_profiling_output_mode=csv: "node type, start, first, avg_ms, %,
// cdf%, mem KB, times called, name", also without start). The output holds
// an initialization report, then "Operator-wise Profiling Info for Regular
// Benchmark Runs:" with sections "Run Order", "Top by Computation Time" and
// "Summary by node type"; the layers are the regular runs' Run Order rows.
// [avg ms] is per call and [times called] calls per run (older releases
// have no [times called]: one call), so a layer's time per inference is
// avg ms x times called. Node types with spaces (XNNPACK's "Convolution
// (NHWC, QC8) GEMM") and names with commas ("[a, b]:3") are read by finding
// the run of numeric cells between them.
#include <algorithm>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "probes/profile/reader_support.h"
#include "probes/profile/readers.h"

namespace harness::profile_reading {
namespace {

struct Table {
  std::vector<std::string> numeric;  // the columns between node type and name, in order
  bool csv = false;
  std::size_t header_line = 0;       // index into the lines
};

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// The header of a table in either form, or nullopt.
std::optional<Table> header_of(std::string_view line) {
  Table t;
  if (contains(line, "[node type]")) {
    static const std::regex label(R"(\[([^\]]*)\])");
    std::string s(line);
    std::vector<std::string> labels;
    for (auto it = std::sregex_iterator(s.begin(), s.end(), label); it != std::sregex_iterator(); ++it)
      labels.push_back(lower(trim((*it)[1].str())));
    if (labels.size() < 3 || labels.front() != "node type" || labels.back() != "name") return std::nullopt;
    t.numeric.assign(labels.begin() + 1, labels.end() - 1);
    return t;
  }
  const std::string l = lower(trim(line));
  if (l.rfind("node type,", 0) == 0 && contains(l, "avg_ms") && contains(l, "name")) {
    std::vector<std::string> cells;
    std::size_t pos = 0;
    while (pos <= l.size()) {
      std::size_t comma = l.find(',', pos);
      if (comma == std::string::npos) comma = l.size();
      cells.push_back(trim(std::string_view(l).substr(pos, comma - pos)));
      pos = comma + 1;
    }
    if (cells.size() < 3 || cells.back() != "name") return std::nullopt;
    t.numeric.assign(cells.begin() + 1, cells.end() - 1);
    t.csv = true;
    return t;
  }
  return std::nullopt;
}

// The regular runs' Run Order table: after the regular-runs heading when
// there is one, the first table under a "Run Order" title, else the first.
std::optional<Table> find_table(const std::vector<Line>& lines) {
  std::size_t from = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (contains(lines[i].text, "Profiling Info for Regular Benchmark Runs")) from = i;
  std::optional<Table> first;
  bool run_order = false;
  for (std::size_t i = from; i < lines.size(); ++i) {
    if (contains(lines[i].text, "=====")) run_order = contains(lines[i].text, "Run Order");
    std::optional<Table> t = header_of(lines[i].text);
    if (!t) continue;
    t->header_line = i;
    if (run_order) return t;
    if (!first) first = t;
  }
  return first;
}

struct Row {
  std::string type, name;
  std::vector<double> numbers;
};

bool is_number(std::string_view cell) {
  return cell_number(cell, "", "", true).ok();
}

// Splits a row into node type, the numeric cells and the name.
Result<Row> split_row(std::string_view line, const Table& t, const std::string& where) {
  std::vector<std::pair<std::size_t, std::size_t>> cells;  // [begin, end) of each cell in `line`
  if (t.csv) {
    std::size_t pos = 0;
    while (pos <= line.size()) {
      std::size_t comma = line.find(',', pos);
      if (comma == std::string_view::npos) comma = line.size();
      cells.emplace_back(pos, comma);
      pos = comma + 1;
    }
  } else {
    cells = word_spans(line);
  }
  const std::size_t m = t.numeric.size();
  auto cell = [&](std::size_t k) { return line.substr(cells[k].first, cells[k].second - cells[k].first); };
  for (std::size_t j = 1; j + m < cells.size(); ++j) {
    bool numeric = true;
    for (std::size_t k = j; k < j + m && numeric; ++k) numeric = is_number(cell(k));
    if (!numeric) continue;
    Row r;
    r.type = trim(line.substr(0, cells[j - 1].second));
    r.name = trim(line.substr(cells[j + m].first));
    for (std::size_t k = j; k < j + m; ++k) {
      Result<double> v = cell_number(cell(k), where, t.numeric[k - j], true);
      if (!v) return v.error();
      r.numbers.push_back(*v);
    }
    if (r.type.empty() || r.name.empty()) break;
    return r;
  }
  return Error::input(fmt::format("{}: expected a node type, {} numbers ({}) and a name", where, m,
                                  fmt::join(t.numeric, ", ")));
}

bool is_delegate_kernel(const Row& r) {
  return contains(lower(r.type), "delegate") && r.type != "DelegateOpInvoke" && r.name.rfind("Delegate/", 0) != 0;
}
bool is_inside_delegate(const Row& r) { return r.type == "DelegateOpInvoke" || r.name.rfind("Delegate/", 0) == 0; }

// XNNPACK names its operators "Name (layout, type)": a CPU library.
bool is_xnnpack_op(const std::string& type) {
  static const std::regex xnn(R"(.+ \((NC|NHWC|NCHW|ND|NWC|NCW)\b.*\).*)");
  return std::regex_match(type, xnn);
}

void place(ProfileLayer& l, const Row& r, const std::string& delegate) {
  const std::string type = lower(r.type);
  if (is_inside_delegate(r)) {
    const bool cpu = is_xnnpack_op(r.type) || contains(lower(delegate), "xnnpack");
    l.device = cpu ? LayerDevice::cpu : LayerDevice::accelerator;
    l.device_text = delegate.empty() ? (cpu ? "XNNPACK (CPU)" : "delegate") : delegate;
  } else if (is_delegate_kernel(r)) {
    l.device = contains(type, "xnnpack") ? LayerDevice::cpu : LayerDevice::accelerator;
    l.device_text = r.type;
  } else {
    l.device = LayerDevice::cpu;
    l.device_text = "TensorFlow Lite CPU kernel";
  }
}

}  // namespace

bool looks_like_tflite(std::string_view text) {
  for (const Line& l : lines_of(text.substr(0, std::min<std::size_t>(text.size(), 1 << 20))))
    if (header_of(l.text)) return true;
  return false;
}

Result<LayerProfile> read_tflite(std::string_view text, const std::string& path, const ProfileReadOptions&) {
  const std::vector<Line> lines = lines_of(text);
  std::optional<Table> table = find_table(lines);
  if (!table) {
    return Error::input(fmt::format("{}: no TensorFlow Lite op profiling table (a \"[node type] ... [Name]\" header "
                                    "or a \"node type, ..., name\" CSV header)", path));
  }
  auto column = [&](const char* name) -> std::optional<std::size_t> {
    auto it = std::find(table->numeric.begin(), table->numeric.end(), name);
    if (it == table->numeric.end()) return std::nullopt;
    return static_cast<std::size_t>(it - table->numeric.begin());
  };
  const auto avg = column(table->csv ? "avg_ms" : "avg ms");
  const auto start = column("start");
  const auto calls = column("times called");
  const std::string header_where = fmt::format("{}:{}", path, lines[table->header_line].number);
  if (!avg) return Error::input(fmt::format("{}: the table has no [avg ms] column", header_where));
  std::vector<std::pair<Row, std::string>> rows;
  for (std::size_t i = table->header_line + 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i].text;
    if (trim(line).empty() || contains(line, "=====")) break;
    const std::string where = fmt::format("{}:{}", path, lines[i].number);
    Result<Row> r = split_row(line, *table, where);
    if (!r) return r.error();
    for (std::size_t k = 0; k < r->numbers.size(); ++k)
      if (r->numbers[k] < 0 && table->numeric[k] != "cdf%")
        return Error::input(fmt::format("{}: column '{}': negative value {}", where, table->numeric[k], r->numbers[k]));
    rows.emplace_back(std::move(*r), where);
  }
  if (rows.empty()) return Error::input(fmt::format("{}: the table has a header but no rows", header_where));
  // Where a fused delegate kernel is listed, the rows inside it repeat its time.
  std::string delegate;
  for (const auto& [r, where] : rows)
    if (is_delegate_kernel(r)) delegate = r.type;
  LayerProfile p;
  p.format = "tflite";
  LayerCollector layers;
  int left_out = 0;
  for (const auto& [r, where] : rows) {
    if (!delegate.empty() && is_inside_delegate(r)) {
      ++left_out;
      continue;
    }
    const double n = calls ? r.numbers[*calls] : 1;
    const double seconds = r.numbers[*avg] * n * 1e-3;
    if (layers.has(r.name)) return Error::input(fmt::format("{}: layer \"{}\" is listed twice", where, r.name));
    ProfileLayer& l = layers.layer(r.name, where);
    l.op = r.type;
    place(l, r, delegate);
    layers.add_call(r.name, 0, seconds);
    if (start) p.kernels.push_back({r.numbers[*start] * 1e-3, r.numbers[*start] * 1e-3 + seconds, 0, layers.index_of(r.name)});
  }
  layers.finish(p, 1);
  p.has_start = start.has_value();
  p.device_known = true;
  if (left_out > 0)
    p.notes.push_back(fmt::format("{} rows inside {} left out: their time is in its row", left_out, delegate));
  if (!calls) p.notes.push_back("no [times called] column (an older release): one call per inference");
  return p;
}

}  // namespace harness::profile_reading
