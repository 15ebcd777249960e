#include "probes/profile/reader_support.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace harness::profile_reading {

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  int number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back({line, ++number});
    pos = end + 1;
  }
  return out;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::pair<std::size_t, std::size_t>> word_spans(std::string_view line) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t b = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > b) out.emplace_back(b, i);
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

Result<double> cell_number(std::string_view cell, const std::string& where, const std::string& column, bool percent) {
  std::string t = trim(cell);
  std::string_view v = t;
  if (percent && !v.empty() && v.back() == '%') v.remove_suffix(1);
  double d = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size() || !std::isfinite(d)) {
    return Error::input(fmt::format("{}: column '{}': \"{}\" is not a number", where, column, t));
  }
  return d;
}

Result<double> non_negative(std::string_view cell, const std::string& where, const std::string& column,
                            const std::string& what) {
  Result<double> v = cell_number(cell, where, column);
  if (!v) return v.error();
  if (*v < 0) return Error::input(fmt::format("{}: column '{}': negative {} {}", where, column, what, *v));
  return *v;
}

Result<std::vector<std::string>> csv_cells(std::string_view line, const std::string& where) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cell += c;
      }
    } else if (c == ',') {
      cells.push_back(was_quoted ? cell : trim(cell));
      cell.clear();
      was_quoted = false;
    } else if (c == '"' && trim(cell).empty()) {
      quoted = was_quoted = true;
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (quoted) return Error::input(fmt::format("{}: malformed CSV: a quoted cell is not closed", where));
  cells.push_back(was_quoted ? cell : trim(cell));
  return cells;
}

std::vector<int> json_element_lines(std::string_view text, const std::string& member) {
  // A scan of the text's structure (depth, strings, the last key of the
  // top-level object): enough to tell where each element of the one array
  // starts, which the parsed document no longer knows.
  std::vector<int> lines;
  const int array_depth = member.empty() ? 1 : 2;
  int line = 1, depth = 0;
  bool in_string = false, escaped = false, in_array = false, array_done = false, want_element = false;
  std::string key, last_string;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      else if (depth == 1 && last_string.size() < 256) last_string += c;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (in_array && depth == array_depth && want_element && c != ']') {
      lines.push_back(line);
      want_element = false;
    }
    switch (c) {
      case '"': in_string = true; last_string.clear(); break;
      case ':': if (depth == 1) key = last_string; break;
      case '[':
      case '{':
        ++depth;
        if (c == '[' && depth == array_depth && !array_done && (member.empty() || key == member))
          in_array = want_element = true;
        break;
      case ']':
      case '}':
        if (in_array && depth == array_depth) {
          in_array = false;
          array_done = true;
        }
        --depth;
        break;
      case ',': if (in_array && depth == array_depth) want_element = true; break;
      default: break;
    }
  }
  return lines;
}

Result<std::optional<double>> json_number(const nlohmann::json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<double>();
  if (it->is_number()) {
    double d = it->get<double>();
    if (!std::isfinite(d)) return Error::input(fmt::format("{}: \"{}\" is not a finite number", where, key));
    return std::optional<double>(d);
  }
  if (it->is_string()) {
    Result<double> d = cell_number(it->get_ref<const std::string&>(), where, key);
    if (!d) return Error::input(fmt::format("{}: \"{}\": {} is not a number", where, key, it->dump()));
    return std::optional<double>(*d);
  }
  return Error::input(fmt::format("{}: \"{}\": expected a number, got {}", where, key, it->type_name()));
}

std::vector<double> self_times(const std::vector<Slice>& slices, std::vector<bool>* parents) {
  std::vector<double> self(slices.size());
  if (parents) parents->assign(slices.size(), false);
  std::vector<std::size_t> order(slices.size());
  for (std::size_t i = 0; i < slices.size(); ++i) {
    order[i] = i;
    self[i] = slices[i].end - slices[i].start;
  }
  // Per track by start; the longer first, so a parent comes before a child
  // that starts with it.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Slice &x = slices[a], &y = slices[b];
    if (x.track != y.track) return x.track < y.track;
    if (x.start != y.start) return x.start < y.start;
    return x.end > y.end;
  });
  std::vector<std::size_t> open;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Slice& s = slices[order[k]];
    while (!open.empty() && (slices[open.back()].track != s.track || slices[open.back()].end <= s.start))
      open.pop_back();
    if (!open.empty()) {
      const Slice& parent = slices[open.back()];
      self[open.back()] -= std::min(s.end, parent.end) - s.start;
      if (parents) (*parents)[open.back()] = true;
    }
    open.push_back(order[k]);
  }
  for (double& t : self) t = std::max(0.0, t);
  return self;
}

ProfileLayer& LayerCollector::layer(const std::string& name, const std::string& where) {
  auto [it, inserted] = index_.emplace(name, layers_.size());
  if (inserted) {
    ProfileLayer l;
    l.name = name;
    l.where = where;
    l.calls = 0;
    layers_.push_back(std::move(l));
    per_run_.emplace_back();
    calls_.push_back(0);
  }
  return layers_[it->second];
}

void LayerCollector::add_call(const std::string& name, int run, double seconds) {
  auto it = index_.find(name);
  if (it == index_.end()) return;
  per_run_[it->second][run] += seconds;
  ++calls_[it->second];
}

void LayerCollector::finish(LayerProfile& out, int runs) {
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    ProfileLayer& l = layers_[i];
    std::vector<double> per_run;
    double total = 0;
    for (const auto& [run, seconds] : per_run_[i]) {
      per_run.push_back(seconds);
      total += seconds;
    }
    // A run in which the layer never ran counts as 0 for it.
    while (per_run.size() < static_cast<std::size_t>(runs)) per_run.push_back(0);
    l.time_s = total / runs;
    l.calls = calls_[i];
    if (runs > 1) {
      std::sort(per_run.begin(), per_run.end());
      const std::size_t n = per_run.size();
      l.median_s = n % 2 ? per_run[n / 2] : (per_run[n / 2 - 1] + per_run[n / 2]) / 2;
    }
    out.layers.push_back(std::move(l));
  }
  layers_.clear();
  index_.clear();
}

LayerDevice provider_device(const std::string& provider) {
  static const char* cpu[] = {"CPUExecutionProvider", "XnnpackExecutionProvider", "DnnlExecutionProvider",
                              "ACLExecutionProvider", "ArmNNExecutionProvider"};
  if (provider.empty()) return LayerDevice::unknown;
  for (const char* c : cpu)
    if (provider == c) return LayerDevice::cpu;
  return LayerDevice::accelerator;
}

}  // namespace harness::profile_reading
