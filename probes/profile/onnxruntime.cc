// ONNX Runtime's profiling JSON (SessionOptions.enable_profiling): a bare
// array of trace events, one per line. Per node and run, category "Node"
// events "<node>_fence_before", "<node>_kernel_time", "<node>_fence_after";
// the kernel event's args carry op_name, provider, activation_size,
// parameter_size, output_size (integers written as strings) and, since 1.7,
// input_type_shape/output_type_shape ([{"float": [1, 3, 224, 224]}, ...]).
// Category "Session" events include one "model_run" per Run(). ts and dur
// are microseconds from the start of profiling.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "probes/profile/reader_support.h"
#include "probes/profile/readers.h"
#include "probes/profile/work.h"

namespace harness::profile_reading {
namespace {

constexpr std::string_view kKernel = "_kernel_time", kFenceBefore = "_fence_before", kFenceAfter = "_fence_after";

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string text_member(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// [{"float": [1, 3, 224, 224]}, {"int64": [2]}]
Result<std::vector<TensorShape>> tensor_shapes(const nlohmann::json& args, const char* key, const std::string& where) {
  std::vector<TensorShape> out;
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return out;
  const std::string at = fmt::format("{}: \"{}\"", where, key);
  if (!it->is_array()) return Error::input(fmt::format("{}: expected an array of {{\"type\": [dims]}}", at));
  for (const nlohmann::json& tensor : *it) {
    if (!tensor.is_object() || tensor.size() != 1 || !tensor.begin().value().is_array()) {
      return Error::input(fmt::format("{}: expected {{\"type\": [dims]}}, got {}", at, tensor.dump().substr(0, 80)));
    }
    TensorShape s;
    s.dtype = tensor.begin().key();
    const nlohmann::json& dims = tensor.begin().value();
    if (dims.size() > kMaxTensorRank) HARNESS_TRY(check_tensor_shape(TensorShape{"", std::vector<std::int64_t>(dims.size())}, at));
    for (const nlohmann::json& d : dims) {
      if (!d.is_number_integer()) return Error::input(fmt::format("{}: dimension {} is not an integer", at, d.dump()));
      s.dims.push_back(d.get<std::int64_t>());
    }
    HARNESS_TRY(check_tensor_shape(s, at));
    out.push_back(std::move(s));
  }
  return out;
}

// The layer's op, provider and work from its first kernel event.
Status describe_layer(ProfileLayer& l, const nlohmann::json& event, const std::string& where, double element_bytes) {
  auto args_it = event.find("args");
  if (args_it == event.end() || !args_it->is_object()) return ok();
  const nlohmann::json& args = *args_it;
  l.op = text_member(args, "op_name");
  l.device_text = text_member(args, "provider");
  l.device = provider_device(l.device_text);
  Result<std::vector<TensorShape>> inputs = tensor_shapes(args, "input_type_shape", where);
  if (!inputs) return inputs.error();
  Result<std::vector<TensorShape>> outputs = tensor_shapes(args, "output_type_shape", where);
  if (!outputs) return outputs.error();
  if (std::optional<OpWork> w = op_work(l.op, *inputs, *outputs)) {
    l.flops = w->flops;
    l.flops_provenance = Provenance::model;
    l.flops_source = w->formula + " (shapes from ONNX Runtime)";
  }
  double bytes = 0;
  bool sized = false;
  for (const char* key : {"activation_size", "parameter_size", "output_size"}) {
    Result<std::optional<double>> v = json_number(args, key, where);
    if (!v) return v.error();
    if (!*v) continue;
    if (**v < 0) return Error::input(fmt::format("{}: \"{}\": negative size {}", where, key, **v));
    bytes += **v;
    sized = true;
  }
  if (sized) {
    l.bytes = bytes;
    l.bytes_provenance = Provenance::declared;
    l.bytes_source = "activation_size + parameter_size + output_size (ONNX Runtime)";
  } else if (!inputs->empty() || !outputs->empty()) {
    double b = 0;
    for (const auto* list : {&*inputs, &*outputs})
      for (const TensorShape& t : *list) b += t.elements() * dtype_bytes(t.dtype).value_or(element_bytes);
    l.bytes = b;
    l.bytes_provenance = Provenance::model;
    l.bytes_from_shapes = true;
    l.bytes_source = "tensor shapes x element size (ONNX Runtime)";
  }
  return ok();
}

struct Event {
  std::size_t index;
  double ts, dur;
};

}  // namespace

bool looks_like_onnxruntime(const nlohmann::json& doc) {
  if (!doc.is_array()) return false;
  for (const nlohmann::json& e : doc) {
    if (!e.is_object()) continue;
    const std::string name = text_member(e, "name");
    if (text_member(e, "cat") == "Node" && (ends_with(name, kKernel) || ends_with(name, kFenceBefore))) return true;
  }
  return false;
}

Result<LayerProfile> read_onnxruntime(const JsonProfile& in, const ProfileReadOptions& options) {
  if (!in.doc.is_array()) {
    return Error::input(fmt::format("{}: expected ONNX Runtime's profile: an array of trace events", in.path));
  }
  LayerProfile p;
  p.format = "onnxruntime";
  std::vector<Event> kernels;
  std::vector<std::pair<double, double>> run_windows;
  double sync = 0;
  for (std::size_t i = 0; i < in.doc.size(); ++i) {
    const nlohmann::json& e = in.doc[i];
    const std::string where = in.where(i);
    if (!e.is_object()) return Error::input(fmt::format("{}: expected an event object, got {}", where, e.type_name()));
    const std::string cat = text_member(e, "cat"), name = text_member(e, "name");
    if (cat != "Node" && !(cat == "Session" && name == "model_run")) continue;
    Result<std::optional<double>> ts = json_number(e, "ts", where);
    if (!ts) return ts.error();
    Result<std::optional<double>> dur = json_number(e, "dur", where);
    if (!dur) return dur.error();
    if (!*ts || !*dur) return Error::input(fmt::format("{}: event \"{}\" has no \"ts\" or \"dur\"", where, name));
    if (**dur < 0) return Error::input(fmt::format("{}: event \"{}\": negative duration {} us", where, name, **dur));
    if (**ts < 0) return Error::input(fmt::format("{}: event \"{}\": negative timestamp {} us", where, name, **ts));
    if (cat == "Session") {
      run_windows.emplace_back(**ts, **ts + **dur);
    } else if (ends_with(name, kKernel)) {
      kernels.push_back({i, **ts, **dur});
    } else if (ends_with(name, kFenceBefore) || ends_with(name, kFenceAfter)) {
      sync += **dur;
      ++p.sync_events;
    }
  }
  if (kernels.empty()) {
    return Error::input(fmt::format("{}: no \"<node>{}\" events of category \"Node\" (was profiling on?)", in.path, kKernel));
  }
  std::sort(run_windows.begin(), run_windows.end());
  // Which run each kernel belongs to: the model_run window around it, or
  // else the count of its node's earlier kernels.
  std::vector<int> run_of(kernels.size(), -1);
  bool windows_hold = !run_windows.empty();
  for (std::size_t k = 0; k < kernels.size() && windows_hold; ++k) {
    auto it = std::upper_bound(run_windows.begin(), run_windows.end(), std::make_pair(kernels[k].ts, 1e300));
    if (it == run_windows.begin() || kernels[k].ts + kernels[k].dur > std::prev(it)->second) windows_hold = false;
    else run_of[k] = static_cast<int>(std::prev(it) - run_windows.begin());
  }
  std::map<std::string, int> seen;
  int runs = windows_hold ? static_cast<int>(run_windows.size()) : 0;
  std::vector<Slice> slices;
  LayerCollector layers;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const nlohmann::json& e = in.doc[kernels[k].index];
    std::string name = text_member(e, "name");
    name.resize(name.size() - kKernel.size());
    if (!windows_hold) {
      run_of[k] = seen[name]++;
      runs = std::max(runs, run_of[k] + 1);
    }
    const bool first = !layers.has(name);
    ProfileLayer& l = layers.layer(name, in.where(kernels[k].index));
    if (first) HARNESS_TRY(describe_layer(l, e, in.where(kernels[k].index), options.element_bytes));
    slices.push_back({fmt::format("{}:{}", e.value("pid", nlohmann::json()).dump(), e.value("tid", nlohmann::json()).dump()),
                      kernels[k].ts, kernels[k].ts + kernels[k].dur});
    p.kernels.push_back({kernels[k].ts * 1e-6, (kernels[k].ts + kernels[k].dur) * 1e-6, run_of[k], layers.index_of(name)});
  }
  // A control-flow node (If, Loop, Scan) runs its subgraph's kernels inside
  // its own: only its own share counts, so nothing is counted twice.
  std::vector<double> self = self_times(slices);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::string name = text_member(in.doc[kernels[k].index], "name");
    name.resize(name.size() - kKernel.size());
    layers.add_call(name, run_of[k], self[k] * 1e-6);
  }
  p.runs = std::max(1, runs);
  layers.finish(p, p.runs);
  p.has_start = true;
  if (p.sync_events > 0) p.sync_time_s = sync * 1e-6 / p.runs;  // 1.14 on write no fences
  p.device_known = std::all_of(p.layers.begin(), p.layers.end(),
                               [](const ProfileLayer& l) { return l.device != LayerDevice::unknown; });
  return p;
}

}  // namespace harness::profile_reading
