#include "harness/levels/layer_profile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/join.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <boost/tokenizer.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/units.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

// Time columns and the factor to seconds.
const std::vector<std::pair<std::string, double>>& time_units() {
  static const std::vector<std::pair<std::string, double>> u = {
      {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  return u;
}

std::optional<double> element_size(const std::string& dtype) {
  static const std::map<std::string, double> sizes = {
      {"fp64", 8}, {"float64", 8}, {"fp32", 4},    {"float32", 4}, {"float", 4}, {"int32", 4},
      {"fp16", 2}, {"float16", 2}, {"bf16", 2},    {"bfloat16", 2}, {"int16", 2}, {"int8", 1},
      {"uint8", 1}, {"fp8", 1},    {"int4", 0.5}};
  auto it = sizes.find(boost::algorithm::to_lower_copy(dtype));
  if (it == sizes.end()) return std::nullopt;
  return it->second;
}

// One layer's cells by column name, whatever the file format; `where`
// prefixes every error.
class Cells {
 public:
  virtual ~Cells() = default;
  virtual std::optional<std::string> text(const std::string& column) const = 0;
  virtual Result<std::optional<double>> number(const std::string& column) const = 0;
  std::string where;
};

Error cell_error(const std::string& where, const std::string& column, const std::string& message) {
  return Error::input(fmt::format("{}: column '{}': {}", where, column, message));
}

Result<double> parse_number(const std::string& where, const std::string& column, const std::string& cell) {
  double v = 0;
  const char* end = cell.data() + cell.size();
  auto [ptr, ec] = std::from_chars(cell.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) {
    return cell_error(where, column, fmt::format("\"{}\" is not a number", cell));
  }
  return v;
}

// "1x64x56x56;64x64x3x3": tensors separated by ';' or spaces, dims by 'x'.
Result<double> shape_elements(const std::string& where, const std::string& cell) {
  double total = 0;
  boost::char_separator<char> tensors("; ");
  boost::tokenizer<boost::char_separator<char>> tok(cell, tensors);
  bool any = false;
  for (const std::string& tensor : tok) {
    double elements = 1;
    boost::char_separator<char> dims("xX");
    boost::tokenizer<boost::char_separator<char>> dt(tensor, dims);
    bool dim_seen = false;
    for (const std::string& d : dt) {
      std::int64_t n = 0;
      auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), n);
      if (ec != std::errc() || ptr != d.data() + d.size() || n <= 0) {
        return cell_error(where, "shapes", fmt::format("\"{}\" is not a shape such as 1x64x56x56", tensor));
      }
      elements *= static_cast<double>(n);
      dim_seen = true;
    }
    if (!dim_seen) return cell_error(where, "shapes", fmt::format("\"{}\" is not a shape such as 1x64x56x56", tensor));
    total += elements;
    any = true;
  }
  if (!any) return cell_error(where, "shapes", "empty");
  return total;
}

// Reads one layer from its cells; `columns` tells which optional columns exist.
Result<ProfileLayer> read_layer(const Cells& c, const std::string& time_column, double time_scale,
                                const std::string& start_column, double start_scale, double element_bytes) {
  ProfileLayer l;
  l.where = c.where;
  std::optional<std::string> name = c.text("layer");
  if (!name || name->empty()) return cell_error(c.where, "layer", "empty layer name");
  l.name = *name;
  l.op = c.text("op").value_or("");

  Result<std::optional<double>> t = c.number(time_column);
  if (!t) return t.error();
  if (!*t) return cell_error(c.where, time_column, "empty time");
  if (**t < 0) return cell_error(c.where, time_column, fmt::format("negative time {}", **t));
  l.time_s = **t * time_scale;

  if (!start_column.empty()) {
    Result<std::optional<double>> s = c.number(start_column);
    if (!s) return s.error();
    if (*s) {
      if (**s < 0) return cell_error(c.where, start_column, fmt::format("negative start {}", **s));
      l.start_s = **s * start_scale;
    }
  }
  for (const char* column : {"flops", "bytes"}) {
    Result<std::optional<double>> v = c.number(column);
    if (!v) return v.error();
    if (*v && **v < 0) return cell_error(c.where, column, fmt::format("negative value {}", **v));
    (std::string(column) == "flops" ? l.flops : l.bytes) = *v;
  }
  if (!l.bytes) {
    std::optional<std::string> shapes = c.text("shapes");
    if (shapes && !shapes->empty()) {
      Result<double> elements = shape_elements(c.where, *shapes);
      if (!elements) return elements.error();
      double size = element_bytes;
      if (std::optional<std::string> dtype = c.text("dtype"); dtype && !dtype->empty()) {
        std::optional<double> s = element_size(*dtype);
        if (!s) return cell_error(c.where, "dtype", fmt::format("unknown data type \"{}\"", *dtype));
        size = *s;
      }
      l.bytes = *elements * size;
      l.bytes_from_shapes = true;
    }
  }
  return l;
}

// Which "<stem>_<unit>" column a header has: exactly one may be present.
Result<std::pair<std::string, double>> unit_column(const std::vector<std::string>& header,
                                                   const std::string& stem, bool required,
                                                   const std::string& where) {
  std::vector<std::pair<std::string, double>> found;
  for (const auto& [unit, scale] : time_units()) {
    std::string name = stem + "_" + unit;
    if (std::find(header.begin(), header.end(), name) != header.end()) found.push_back({name, scale});
  }
  if (found.size() > 1) {
    return Error::input(fmt::format("{}: columns '{}' and '{}' both give the {}", where, found[0].first,
                                    found[1].first, stem));
  }
  if (found.empty()) {
    if (!required) return std::pair<std::string, double>{"", 1.0};
    return Error::input(fmt::format("{}: no {} column: expected one of {}_s, {}_ms, {}_us, {}_ns", where, stem,
                                    stem, stem, stem, stem));
  }
  return found.front();
}

Status check_unique(std::map<std::string, std::string>& seen, const ProfileLayer& l) {
  auto [it, inserted] = seen.emplace(l.name, l.where);
  if (!inserted) {
    return Error::input(fmt::format("{}: duplicate layer '{}' (first at {})", l.where, l.name, it->second));
  }
  return ok();
}

class CsvCells final : public Cells {
 public:
  CsvCells(const std::vector<std::string>& header, const std::vector<std::string>& row)
      : header_(header), row_(row) {}
  std::optional<std::string> text(const std::string& column) const override {
    auto it = std::find(header_.begin(), header_.end(), column);
    if (it == header_.end()) return std::nullopt;
    return row_[static_cast<std::size_t>(it - header_.begin())];
  }
  Result<std::optional<double>> number(const std::string& column) const override {
    std::optional<std::string> cell = text(column);
    if (!cell || cell->empty()) return std::optional<double>();
    Result<double> v = parse_number(where, column, *cell);
    if (!v) return v.error();
    return std::optional<double>(*v);
  }

 private:
  const std::vector<std::string>& header_;
  const std::vector<std::string>& row_;
};

// Canonical column names for the aliases profilers use.
std::string canonical_column(std::string name) {
  boost::algorithm::trim(name);
  boost::algorithm::to_lower(name);
  if (name == "name" || name == "layer_name") return "layer";
  if (name == "op_type" || name == "type" || name == "op") return "op";
  return name;
}

Result<LayerProfile> parse_csv(const std::string& text, const std::string& path, double element_bytes) {
  using Tokenizer = boost::tokenizer<boost::escaped_list_separator<char>>;
  LayerProfile p;
  std::vector<std::string> header;
  std::string time_column, start_column;
  double time_scale = 1, start_scale = 1;
  std::map<std::string, std::string> seen;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool all_start = true;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string trimmed = boost::algorithm::trim_copy(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;  // comments say how the file was made
    const std::string where = fmt::format("{}:{}", path, number);
    std::vector<std::string> cells;
    try {
      Tokenizer tok(line, boost::escaped_list_separator<char>('\\', ',', '"'));
      for (std::string cell : tok) cells.push_back(boost::algorithm::trim_copy(cell));
    } catch (const boost::escaped_list_error& e) {
      return Error::input(fmt::format("{}: malformed CSV: {}", where, e.what()));
    }
    if (header.empty()) {
      for (const std::string& c : cells) header.push_back(canonical_column(c));
      if (std::find(header.begin(), header.end(), "layer") == header.end()) {
        return Error::input(fmt::format("{}: missing column 'layer' (the header has: {})", where,
                                        boost::algorithm::join(cells, ", ")));
      }
      Result<std::pair<std::string, double>> t = unit_column(header, "time", true, where);
      if (!t) return t.error();
      std::tie(time_column, time_scale) = *t;
      Result<std::pair<std::string, double>> s = unit_column(header, "start", false, where);
      if (!s) return s.error();
      std::tie(start_column, start_scale) = *s;
      continue;
    }
    if (cells.size() != header.size()) {
      return Error::input(fmt::format("{}: expected {} cells as in the header, got {}", where, header.size(),
                                      cells.size()));
    }
    CsvCells c(header, cells);
    c.where = where;
    Result<ProfileLayer> l = read_layer(c, time_column, time_scale, start_column, start_scale, element_bytes);
    if (!l) return l.error();
    HARNESS_TRY(check_unique(seen, *l));
    all_start = all_start && l->start_s.has_value();
    p.layers.push_back(std::move(*l));
  }
  if (header.empty()) return Error::input(fmt::format("{}: empty profile (no header line)", path));
  if (p.layers.empty()) return Error::input(fmt::format("{}: the profile has a header but no layers", path));
  p.has_start = !start_column.empty() && all_start;
  return p;
}

class JsonCells final : public Cells {
 public:
  explicit JsonCells(const nlohmann::json& object) : object_(object) {}
  std::optional<std::string> text(const std::string& column) const override {
    const nlohmann::json* v = find(column);
    if (!v || v->is_null()) return std::nullopt;
    if (v->is_string()) return v->get<std::string>();
    return v->dump();
  }
  Result<std::optional<double>> number(const std::string& column) const override {
    const nlohmann::json* v = find(column);
    if (!v || v->is_null()) return std::optional<double>();
    if (!v->is_number()) return cell_error(where, column, fmt::format("{} is not a number", v->dump()));
    double d = v->get<double>();
    if (!std::isfinite(d)) return cell_error(where, column, "not a finite number");
    return std::optional<double>(d);
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (const auto& [key, value] : object_.items()) k.push_back(canonical_column(key));
    return k;
  }

 private:
  const nlohmann::json* find(const std::string& column) const {
    for (const auto& [key, value] : object_.items())
      if (canonical_column(key) == column) return &value;
    return nullptr;
  }
  const nlohmann::json& object_;
};

Result<LayerProfile> read_json_layers(const nlohmann::json& doc, const std::string& path, double element_bytes);

Result<LayerProfile> parse_json(const std::string& text, const std::string& path, double element_bytes) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports a byte offset; people want a line.
    std::size_t upto = std::min<std::size_t>(e.byte, text.size());
    int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upto), '\n'));
    return Error::input(fmt::format("{}:{}: invalid JSON: {}", path, line, e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number out of range
    return Error::input(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  try {
    return read_json_layers(doc, path, element_bytes);
  } catch (const nlohmann::json::exception& e) {  // e.g. a string that is not UTF-8
    return Error::input(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
}

Result<LayerProfile> read_json_layers(const nlohmann::json& doc, const std::string& path, double element_bytes) {
  const nlohmann::json* layers = &doc;
  if (doc.is_object() && doc.contains("layers")) layers = &doc.at("layers");
  if (!layers->is_array()) {
    return Error::input(fmt::format("{}: expected an array of layers or an object with \"layers\": [...]", path));
  }
  LayerProfile p;
  std::map<std::string, std::string> seen;
  bool all_start = true, any_start_column = false;
  for (std::size_t i = 0; i < layers->size(); ++i) {
    const nlohmann::json& item = (*layers)[i];
    const std::string where = fmt::format("{}: layers[{}]", path, i);
    if (!item.is_object()) return Error::input(fmt::format("{}: expected an object, got {}", where, item.dump()));
    JsonCells c(item);
    c.where = where;
    std::vector<std::string> keys = c.keys();
    if (std::find(keys.begin(), keys.end(), "layer") == keys.end()) {
      return Error::input(fmt::format("{}: missing key 'layer'", where));
    }
    Result<std::pair<std::string, double>> t = unit_column(keys, "time", true, where);
    if (!t) return t.error();
    Result<std::pair<std::string, double>> s = unit_column(keys, "start", false, where);
    if (!s) return s.error();
    any_start_column = any_start_column || !s->first.empty();
    Result<ProfileLayer> l = read_layer(c, t->first, t->second, s->first, s->second, element_bytes);
    if (!l) return l.error();
    HARNESS_TRY(check_unique(seen, *l));
    all_start = all_start && l->start_s.has_value();
    p.layers.push_back(std::move(*l));
  }
  if (p.layers.empty()) return Error::input(fmt::format("{}: the profile has no layers", path));
  p.has_start = any_start_column && all_start;
  return p;
}

// Units and directions come from the catalogue (harness/model/metric_catalogue.cc).
Metric metric(const std::string& name, double value, Provenance p, const std::string& source,
              const std::string& text = "") {
  return catalogued_metric(Level::roofline, name, value, p, source, text);
}

std::string ms(double seconds) { return fmt::format("{:.3g} ms", seconds * 1e3); }

}  // namespace

Result<LayerProfile> parse_layer_profile(const std::string& text, const std::string& path, double element_bytes) {
  std::string lower = boost::algorithm::to_lower_copy(path);
  if (lower.ends_with(".json")) return parse_json(text, path, element_bytes);
  if (lower.ends_with(".csv")) return parse_csv(text, path, element_bytes);
  return Error::input(fmt::format("{}: unknown profile format: expected a .csv or .json file", path));
}

bool is_copy_like(const std::string& op) {
  static const std::vector<std::string> copies = {"permute", "transpose", "copy", "memcpy", "contiguous",
                                                  "reshape_copy", "reshape-with-copy"};
  std::string lower = boost::algorithm::to_lower_copy(op);
  return std::find(copies.begin(), copies.end(), lower) != copies.end();
}

void analyse_layer_profile(const LayerProfile& profile, const LayerProfileConfig& config,
                           const ProfileCeilings& ceilings, Provenance measured, Analysis& out) {
  const std::string source = "profile " + config.written;
  const bool placed = ceilings.peak && ceilings.bandwidth && *ceilings.peak > 0 && *ceilings.bandwidth > 0;
  const Provenance model_p = ceilings.provenance;

  double total = 0, predicted_total = 0, measured_of_predicted = 0, copy_time = 0;
  std::vector<std::string> bandwidth_bound, copies;
  for (const ProfileLayer& l : profile.layers) {
    const std::string pre = "layer." + l.name + ".";
    total += l.time_s;
    if (is_copy_like(l.op)) {
      copy_time += l.time_s;
      copies.push_back(l.name);
    }
    out.metrics.push_back(metric(pre + "time", l.time_s, measured, l.where));
    const std::string bytes_source = l.bytes_from_shapes ? "model: tensor shapes" : "profile bytes";
    if (l.flops && l.bytes && *l.bytes > 0) {
      out.metrics.push_back(metric(pre + "intensity", *l.flops / *l.bytes,
                                   l.bytes_from_shapes ? Provenance::model : measured,
                                   fmt::format("flops / bytes ({})", bytes_source)));
    } else {
      out.metrics.push_back(catalogued_missing(Level::roofline, pre + "intensity",
                                               !l.flops ? "the profile gives no flops for this layer"
                                                        : "the profile gives no bytes (nor shapes) for this layer"));
    }
    // Where the report plots the layer on the roofline: flops / its measured time.
    if (l.flops && l.time_s > 0)
      out.metrics.push_back(metric(pre + "achieved", *l.flops / l.time_s, measured, "flops / time (profile)"));
    else
      out.metrics.push_back(
          catalogued_missing(Level::roofline, pre + "achieved",
                             !l.flops ? "the profile gives no flops for this layer" : "measured time is 0"));
    std::string why;
    if (!placed) why = ceilings.missing;
    else if (!l.flops) why = "the profile gives no flops for this layer";
    else if (!l.bytes) why = "the profile gives no bytes (nor shapes) for this layer";
    if (!why.empty()) {
      for (const char* name : {"predicted_time", "prediction_error", "attainable", "bound"}) {
        out.metrics.push_back(catalogued_missing(Level::roofline, pre + name, why));
      }
      continue;
    }
    // Roofline time: the slower of computing at the peak and streaming at the
    // bandwidth, i.e. flops / min(P, B * AI).
    const double compute_time = *l.flops / *ceilings.peak;
    const double memory_time = *l.bytes / *ceilings.bandwidth;
    const double predicted = std::max(compute_time, memory_time);
    const bool memory_bound = memory_time >= compute_time;
    predicted_total += predicted;
    measured_of_predicted += l.time_s;
    out.metrics.push_back(
        metric(pre + "predicted_time", predicted, Provenance::model,
               fmt::format("max(flops / {}, bytes / {})", ceilings.peak_name, ceilings.bandwidth_name)));
    if (l.time_s > 0) {
      out.metrics.push_back(metric(pre + "prediction_error", (predicted - l.time_s) / l.time_s, model_p,
                                   "(predicted - measured) / measured"));
    } else {
      out.metrics.push_back(catalogued_missing(Level::roofline, pre + "prediction_error", "measured time is 0"));
    }
    out.metrics.push_back(metric(pre + "attainable", *l.flops / predicted, model_p,
                                 fmt::format("min({}, {} x intensity)", ceilings.peak_name, ceilings.bandwidth_name)));
    out.metrics.push_back(
        metric(pre + "bound", memory_bound ? 0 : 1, model_p,
               fmt::format("binding ceiling: {}", memory_bound ? ceilings.bandwidth_name : ceilings.peak_name),
               memory_bound ? "memory" : "compute"));
    if (memory_bound) bandwidth_bound.push_back(l.name);
  }

  out.metrics.push_back(metric("profile.layers", static_cast<double>(profile.layers.size()), measured, source));
  out.metrics.push_back(metric("profile.total_time", total, measured, source + ": sum of layer times"));
  if (placed && predicted_total > 0) {
    out.metrics.push_back(metric(
        "profile.bandwidth_bound", static_cast<double>(bandwidth_bound.size()), model_p, "layers below the ridge",
        fmt::format("{} of {}: {}", bandwidth_bound.size(), profile.layers.size(),
                    bandwidth_bound.empty() ? "none" : boost::algorithm::join(bandwidth_bound, ", "))));
    out.metrics.push_back(
        metric("profile.predicted_time", predicted_total, Provenance::model, "sum of placed layers' roofline times"));
    // The factor that recalibrates the model: measured / predicted over the
    // layers the model could place (seed 001: the model must be calibrated).
    out.metrics.push_back(metric("profile.calibration", measured_of_predicted / predicted_total, model_p,
                                 "measured / predicted time over placed layers"));
  } else {
    const std::string why = placed ? "no layer has both flops and bytes" : ceilings.missing;
    for (const char* name : {"profile.bandwidth_bound", "profile.predicted_time", "profile.calibration"}) {
      out.metrics.push_back(catalogued_missing(Level::roofline, name, why));
    }
  }

  std::vector<const ProfileLayer*> by_time;
  for (const ProfileLayer& l : profile.layers) by_time.push_back(&l);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const ProfileLayer* a, const ProfileLayer* b) { return a->time_s > b->time_s; });
  by_time.resize(std::min<std::size_t>(by_time.size(), static_cast<std::size_t>(config.top)));
  double top_time = 0;
  std::vector<std::string> top_names;
  for (const ProfileLayer* l : by_time) {
    top_time += l->time_s;
    top_names.push_back(fmt::format("{} {}", l->name, ms(l->time_s)));
  }
  if (total > 0) {
    out.metrics.push_back(
        metric("profile.top_time_share", top_time / total, measured,
               fmt::format("share of total time in the top {} layers", by_time.size()),
               fmt::format("{:.1f} % in {}", 100 * top_time / total, boost::algorithm::join(top_names, ", "))));
    out.metrics.push_back(metric(
        "profile.copy_time_share", copy_time / total, measured, "time in permute/transpose/copy-like ops / total",
        fmt::format("{:.1f} % in {}", 100 * copy_time / total,
                    copies.empty() ? "no copy-like op" : boost::algorithm::join(copies, ", "))));
  } else {
    out.metrics.push_back(catalogued_missing(Level::roofline, "profile.top_time_share", "total time is 0"));
    out.metrics.push_back(catalogued_missing(Level::roofline, "profile.copy_time_share", "total time is 0"));
  }

  if (!profile.has_start) {
    for (const char* name : {"profile.idle_time", "profile.idle_gaps", "profile.idle_gap_max"}) {
      out.metrics.push_back(
          catalogued_missing(Level::roofline, name, "the profile has no start timestamps (start_s/_ms/_us/_ns)"));
    }
    return;
  }
  // Idle gaps: time between one op's end and the next op's start, found in
  // start order; overlapping ops leave no gap (CPU fallback and sync waits
  // show up as gaps).
  std::vector<const ProfileLayer*> by_start;
  for (const ProfileLayer& l : profile.layers) by_start.push_back(&l);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [](const ProfileLayer* a, const ProfileLayer* b) { return *a->start_s < *b->start_s; });
  double idle = 0, largest = 0, end = *by_start.front()->start_s + by_start.front()->time_s;
  int gaps = 0;
  std::string largest_text = "none";
  const ProfileLayer* previous = by_start.front();
  for (std::size_t i = 1; i < by_start.size(); ++i) {
    const ProfileLayer* l = by_start[i];
    double gap = *l->start_s - end;
    if (gap > 0) {
      idle += gap;
      ++gaps;
      if (gap > largest) {
        largest = gap;
        largest_text = fmt::format("{} between {} and {}", ms(gap), previous->name, l->name);
      }
    }
    if (*l->start_s + l->time_s >= end) {
      end = *l->start_s + l->time_s;
      previous = l;
    }
  }
  out.metrics.push_back(metric("profile.idle_time", idle, measured, "sum of gaps between ops"));
  out.metrics.push_back(metric("profile.idle_gaps", gaps, measured, "gaps between ops"));
  out.metrics.push_back(metric("profile.idle_gap_max", largest, measured, "largest gap between ops", largest_text));
}

}  // namespace harness
