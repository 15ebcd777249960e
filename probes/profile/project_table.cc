// The project's own per-layer table (scenarios/README.md "[roofline.profile]"):
// CSV with a header, or JSON (an array of objects, or {"layers": [...]}).
// Columns: layer, op, time_s/_ms/_us/_ns, start_*, flops, bytes, shapes,
// dtype.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/join.hpp>
#include <boost/algorithm/string/trim.hpp>
#include <boost/tokenizer.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "probes/profile/reader_support.h"
#include "probes/profile/readers.h"
#include "probes/profile/work.h"

namespace harness::profile_reading {
namespace {

// Time columns and the factor to seconds.
const std::vector<std::pair<std::string, double>>& time_units() {
  static const std::vector<std::pair<std::string, double>> u = {
      {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  return u;
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
    if (elements > kMaxTensorElements) {
      return cell_error(where, "shapes", fmt::format("\"{}\" has {:.4g} elements (at most {:.4g}, 2^29)", tensor,
                                                     elements, kMaxTensorElements));
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
  if (l.flops) l.flops_source = "profile flops";
  if (l.bytes) l.bytes_source = "profile bytes";
  if (!l.bytes) {
    std::optional<std::string> shapes = c.text("shapes");
    if (shapes && !shapes->empty()) {
      Result<double> elements = shape_elements(c.where, *shapes);
      if (!elements) return elements.error();
      double size = element_bytes;
      if (std::optional<std::string> dtype = c.text("dtype"); dtype && !dtype->empty()) {
        std::optional<double> s = dtype_bytes(*dtype);
        if (!s) return cell_error(c.where, "dtype", fmt::format("unknown data type \"{}\"", *dtype));
        size = *s;
      }
      l.bytes = *elements * size;
      l.bytes_from_shapes = true;
      l.bytes_provenance = Provenance::model;
      l.bytes_source = "model: tensor shapes";
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

// Kernels at their start times, when every layer has one.
void add_kernels(LayerProfile& p) {
  if (!p.has_start) return;
  for (std::size_t i = 0; i < p.layers.size(); ++i)
    p.kernels.push_back({*p.layers[i].start_s, *p.layers[i].start_s + p.layers[i].time_s, 0, i});
}

}  // namespace

Result<LayerProfile> read_project_csv(std::string_view text_view, const std::string& path,
                                      const ProfileReadOptions& options) {
  const std::string text(text_view);
  const double element_bytes = options.element_bytes;
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
  p.format = "csv";
  add_kernels(p);
  return p;
}

namespace {

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

}  // namespace

Result<LayerProfile> read_project_json(const JsonProfile& in, const ProfileReadOptions& options) {
  const nlohmann::json& doc = in.doc;
  const std::string& path = in.path;
  const double element_bytes = options.element_bytes;
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
    const std::string where = in.where(i);
    if (!item.is_object()) return Error::input(fmt::format("{}: expected an object, got {}", where, item.type_name()));
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
  p.format = "json";
  add_kernels(p);
  return p;
}

}  // namespace harness::profile_reading
