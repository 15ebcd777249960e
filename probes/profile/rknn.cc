// RKNN's per-layer performance table (RKNN-Toolkit2 eval_perf() with
// perf_debug, or the runtime's RKNN_QUERY_PERF_DETAIL): a header such as
//   ID OpType DataType Target InputShape OutputShape Cycles(DDR/NPU/Total)
//   Time(us) MacUsage(%) WorkLoad(0/1/2) RW(KB) FullName
// (older and per-chip variants: DDRCycles NPUCycles MaxCycles, WorkLoad(0/1),
// TaskNumber, no Cycles at all), a line of dashes, one row per operator
// with cells separated by spaces, "\" for an empty cell and the full name
// last, then a line of dashes and the totals ("Total Operator Elapsed Per
// Frame Time(us): ..."). Times are per frame; Target says CPU, GPU or NPU.
#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "probes/profile/reader_support.h"
#include "probes/profile/readers.h"
#include "probes/profile/work.h"

namespace harness::profile_reading {
namespace {

std::vector<std::string> header_of(std::string_view line) {
  std::vector<std::string> h;
  for (auto [b, e] : word_spans(line)) h.emplace_back(line.substr(b, e - b));
  const bool ok = h.size() >= 3 && h[0] == "ID" && std::count(h.begin(), h.end(), "OpType") == 1 &&
                  std::count(h.begin(), h.end(), "Time(us)") == 1 && h.back() == "FullName";
  return ok ? h : std::vector<std::string>{};
}

bool is_rule(std::string_view line) {
  std::string t = trim(line);
  return t.size() >= 3 && t.find_first_not_of("-=") == std::string::npos;
}

// "(1,3,640,640),(16,3,3,3),(16)" or "\".
Result<std::vector<TensorShape>> shapes_of(const std::string& cell, const std::string& dtype, const std::string& where,
                                           const char* column) {
  std::vector<TensorShape> out;
  if (cell == "\\" || cell.empty()) return out;
  const std::string at = fmt::format("{}: column '{}'", where, column);
  std::size_t i = 0;
  while (i < cell.size()) {
    if (cell[i] == ',') { ++i; continue; }
    if (cell[i] != '(') return Error::input(fmt::format("{}: \"{}\" is not a list of shapes such as (1,3,224,224)", at, cell));
    std::size_t close = cell.find(')', i);
    if (close == std::string::npos) return Error::input(fmt::format("{}: \"{}\": a shape is not closed", at, cell));
    TensorShape s;
    s.dtype = dtype;
    std::string_view dims(cell.data() + i + 1, close - i - 1);
    std::size_t pos = 0;
    while (pos < dims.size()) {
      std::size_t comma = dims.find(',', pos);
      if (comma == std::string_view::npos) comma = dims.size();
      std::int64_t d = 0;
      std::string_view digits = dims.substr(pos, comma - pos);
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
      if (ec != std::errc() || ptr != digits.data() + digits.size())
        return Error::input(fmt::format("{}: \"{}\" is not a dimension", at, digits));
      s.dims.push_back(d);
      if (s.dims.size() > kMaxTensorRank) break;
      pos = comma + 1;
    }
    HARNESS_TRY(check_tensor_shape(s, at));
    out.push_back(std::move(s));
    i = close + 1;
  }
  return out;
}

LayerDevice target_device(const std::string& target) {
  const std::string t = lower(target);
  if (t == "cpu") return LayerDevice::cpu;
  if (t == "npu" || t == "gpu") return LayerDevice::accelerator;
  return LayerDevice::unknown;
}

}  // namespace

bool looks_like_rknn(std::string_view text) {
  for (const Line& l : lines_of(text.substr(0, std::min<std::size_t>(text.size(), 1 << 20))))
    if (!header_of(l.text).empty()) return true;
  return false;
}

Result<LayerProfile> read_rknn(std::string_view text, const std::string& path, const ProfileReadOptions& options) {
  const std::vector<Line> lines = lines_of(text);
  std::vector<std::string> header;
  std::size_t i = 0;
  for (; i < lines.size() && header.empty(); ++i) header = header_of(lines[i].text);
  if (header.empty()) {
    return Error::input(fmt::format("{}: no RKNN perf detail table (a header \"ID OpType ... Time(us) ... FullName\")", path));
  }
  auto at = [&](const char* name) -> std::optional<std::size_t> {
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) return std::nullopt;
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t op = *at("OpType"), time = *at("Time(us)"), full = header.size() - 1;
  const auto target = at("Target"), in_shape = at("InputShape"), out_shape = at("OutputShape"), rw = at("RW(KB)"),
             dtype = at("DataType");
  LayerProfile p;
  p.format = "rknn";
  LayerCollector layers;
  bool rows_started = false;
  for (; i < lines.size(); ++i) {
    const std::string_view line = lines[i].text;
    if (is_rule(line) || trim(line).empty()) {
      if (rows_started) break;
      continue;
    }
    const std::string where = fmt::format("{}:{}", path, lines[i].number);
    auto w = word_spans(line);
    if (w.size() < header.size()) {
      return Error::input(fmt::format("{}: expected {} cells as in the header, got {}", where, header.size(), w.size()));
    }
    rows_started = true;
    auto cell = [&](std::size_t k) { return std::string(line.substr(w[k].first, w[k].second - w[k].first)); };
    const std::string name = trim(line.substr(w[full].first));
    Result<double> us = non_negative(cell(time), where, "Time(us)", "time");
    if (!us) return us.error();
    if (!layers.has(name)) {
      ProfileLayer& l = layers.layer(name, where);
      l.op = cell(op);
      if (target) {
        l.device_text = cell(*target);
        l.device = target_device(l.device_text);
      }
      const std::string type = dtype ? cell(*dtype) : "";
      std::vector<TensorShape> inputs, outputs;
      if (in_shape) {
        Result<std::vector<TensorShape>> s = shapes_of(cell(*in_shape), type, where, "InputShape");
        if (!s) return s.error();
        inputs = std::move(*s);
      }
      if (out_shape) {
        Result<std::vector<TensorShape>> s = shapes_of(cell(*out_shape), type, where, "OutputShape");
        if (!s) return s.error();
        outputs = std::move(*s);
      }
      if (std::optional<OpWork> work = op_work(l.op, inputs, outputs)) {
        l.flops = work->flops;
        l.flops_provenance = Provenance::model;
        l.flops_source = work->formula + " (shapes from RKNN)";
      }
      if (rw && cell(*rw) != "\\") {
        Result<double> kb = non_negative(cell(*rw), where, "RW(KB)", "size");
        if (!kb) return kb.error();
        l.bytes = *kb * 1024;
        l.bytes_provenance = Provenance::declared;
        l.bytes_source = "RW(KB) x 1024 (RKNN runtime)";
      }
      (void)options;
    }
    layers.add_call(name, 0, *us * 1e-6);
  }
  if (layers.empty()) return Error::input(fmt::format("{}: the table has a header but no rows", path));
  layers.finish(p, 1);
  p.device_known = target.has_value() && std::all_of(p.layers.begin(), p.layers.end(), [](const ProfileLayer& l) {
                     return l.device != LayerDevice::unknown;
                   });
  return p;
}

}  // namespace harness::profile_reading
