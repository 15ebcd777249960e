// The table of profile formats: name, what it is, how "auto" recognises it
// by content (never by file name), and its reader.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"
#include "probes/profile/profile.h"
#include "probes/profile/reader_support.h"
#include "probes/profile/readers.h"
#include "probes/profile/work.h"

namespace harness {
namespace {

using namespace profile_reading;

bool looks_like_project_json(const nlohmann::json& doc) {
  const nlohmann::json* layers = &doc;
  if (doc.is_object()) {
    auto it = doc.find("layers");
    if (it == doc.end()) return false;
    layers = &*it;
  }
  if (!layers->is_array() || layers->empty() || !(*layers)[0].is_object()) return false;
  const nlohmann::json& first = (*layers)[0];
  return first.contains("layer") || first.contains("name") || first.contains("layer_name");
}

bool looks_like_project_csv(std::string_view text) {
  for (const Line& l : lines_of(text.substr(0, std::min<std::size_t>(text.size(), 1 << 16)))) {
    std::string t = trim(l.text);
    if (t.empty() || t[0] == '#') continue;
    Result<std::vector<std::string>> cells = csv_cells(t, "");
    if (!cells) return false;
    // A layer column or a time_<unit> column: the project's table (whose
    // reader then says what else it lacks).
    for (const std::string& c : *cells) {
      std::string name = lower(c);
      if (name == "layer" || name == "name" || name == "layer_name" || name.rfind("time_", 0) == 0) return true;
    }
    return false;
  }
  return false;
}

struct ProfileFormat {
  const char* name;
  const char* description;
  // JSON formats: detected on the parsed document; `member` names the event
  // array of the object form.
  bool (*json_test)(const nlohmann::json&);
  Result<LayerProfile> (*read_json)(const JsonProfile&, const ProfileReadOptions&);
  const char* member;
  // Text formats.
  bool (*text_test)(std::string_view);
  Result<LayerProfile> (*read_text)(std::string_view, const std::string&, const ProfileReadOptions&);
};

// In the order "auto" tries them: the more specific before the more general.
const std::vector<ProfileFormat>& formats() {
  static const std::vector<ProfileFormat> f = {
      {"onnxruntime", "ONNX Runtime profiling JSON (enable_profiling)", looks_like_onnxruntime, read_onnxruntime, "",
       nullptr, nullptr},
      {"chrome-trace", "Chrome trace event JSON (chrome://tracing, Perfetto, qnn-profile-viewer)",
       looks_like_chrome_trace, read_chrome_trace, "traceEvents", nullptr, nullptr},
      {"json", "the project's JSON: layers with layer, op, time_*, flops, bytes, ...", looks_like_project_json,
       read_project_json, "layers", nullptr, nullptr},
      {"tflite", "TensorFlow Lite op profiling (benchmark_model --enable_op_profiling), text or CSV", nullptr, nullptr,
       "", looks_like_tflite, read_tflite},
      {"vela", "Arm Vela per-layer CSV (--verbose-performance): compiler estimates", nullptr, nullptr, "",
       looks_like_vela, read_vela},
      {"rknn", "RKNN perf detail table (eval_perf with perf_debug)", nullptr, nullptr, "", looks_like_rknn, read_rknn},
      {"csv", "the project's CSV: layer, op, time_*, start_*, flops, bytes, shapes, dtype", nullptr, nullptr, "",
       looks_like_project_csv, read_project_csv},
  };
  return f;
}

// Names become metric names (layer.<name>.time): a layer needs one, and a
// hostile profile's megabyte-long name is refused where it stands.
constexpr std::size_t kMaxNameBytes = 4096;

Result<LayerProfile> checked(Result<LayerProfile> p) {
  if (!p) return p;
  for (const ProfileLayer& l : p->layers) {
    if (l.name.empty()) return Error::input(fmt::format("{}: a layer (or slice) with no name", l.where));
    for (const std::string* text : {&l.name, &l.op, &l.device_text}) {
      if (text->size() > kMaxNameBytes) {
        return Error::input(fmt::format("{}: a name of {} bytes (at most {})", l.where, text->size(), kMaxNameBytes));
      }
    }
  }
  return p;
}

Result<LayerProfile> read_json_format(const ProfileFormat& f, const nlohmann::json& doc, std::string_view text,
                                      const std::string& path, const ProfileReadOptions& options) {
  JsonProfile in{doc, json_element_lines(text, doc.is_object() ? f.member : ""), path};
  try {
    return f.read_json(in, options);
  } catch (const nlohmann::json::exception& e) {  // a value of an unexpected type deep inside
    return Error::input(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace

namespace profile_reading {
std::string JsonProfile::where(std::size_t i) const {
  if (i < event_lines.size() && event_lines[i] > 0) return fmt::format("{}:{}", path, event_lines[i]);
  return fmt::format("{}: event {}", path, i);
}
}  // namespace profile_reading

const std::vector<std::string>& profile_format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"auto"};
    for (const ProfileFormat& f : formats()) n.push_back(f.name);
    return n;
  }();
  return names;
}

Result<LayerProfile> read_layer_profile(const std::string& text, const std::string& path,
                                        const ProfileReadOptions& options) {
  if (text.size() > kMaxProfileBytes) {
    return Error::input(fmt::format("{}: {} bytes: a profile may have at most {} MiB", path, text.size(),
                                    kMaxProfileBytes >> 20));
  }
  const ProfileFormat* chosen = nullptr;
  for (const ProfileFormat& f : formats())
    if (options.format == f.name) chosen = &f;
  if (!chosen && options.format != "auto") {
    return Error::input(fmt::format("{}: unknown profile format \"{}\" (one of: {})", path, options.format,
                                    fmt::join(profile_format_names(), ", ")));
  }
  const std::size_t first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  const bool json = first != std::string::npos && (text[first] == '[' || text[first] == '{');
  if ((chosen && chosen->read_json) || (!chosen && json)) {
    Result<nlohmann::json> doc = parse_bounded_json(text, path, {.bytes = kMaxProfileBytes});
    if (!doc) return doc.error();
    if (chosen) return checked(read_json_format(*chosen, *doc, text, path, options));
    for (const ProfileFormat& f : formats())
      if (f.json_test && f.json_test(*doc)) return checked(read_json_format(f, *doc, text, path, options));
  } else if (chosen) {
    return checked(chosen->read_text(text, path, options));
  } else {
    for (const ProfileFormat& f : formats())
      if (f.text_test && f.text_test(text)) return checked(f.read_text(text, path, options));
  }
  std::vector<std::string> described;
  for (const ProfileFormat& f : formats()) described.push_back(fmt::format("{} ({})", f.name, f.description));
  return Error::input(fmt::format("{}: not a profile format the harness reads: {}", path, fmt::join(described, "; ")));
}

namespace {

// A layer's name and the parts other tools name it by: TensorFlow Lite
// "[out1, out2]:7" by its outputs, Vela "a;b" (fused ops) by each op.
std::vector<std::string> name_parts(const std::string& name) {
  std::vector<std::string> parts;
  std::string s = name;
  if (s.size() > 2 && s[0] == '[') {
    std::size_t close = s.rfind(']');
    if (close != std::string::npos) s = s.substr(1, close - 1);
  }
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t sep = s.find_first_of(";,", pos);
    if (sep == std::string::npos) sep = s.size();
    std::string part = trim(std::string_view(s).substr(pos, sep - pos));
    if (!part.empty()) parts.push_back(part);
    pos = sep + 1;
  }
  return parts;
}

}  // namespace

std::vector<std::string> join_layer_work(LayerProfile& profile, const LayerProfile& work) {
  std::map<std::string, std::size_t> exact;
  std::map<std::string, std::set<std::size_t>> by_part;
  for (std::size_t i = 0; i < work.layers.size(); ++i) {
    exact.emplace(work.layers[i].name, i);
    for (const std::string& part : name_parts(work.layers[i].name)) by_part[part].insert(i);
  }
  std::vector<bool> used(work.layers.size(), false);
  for (ProfileLayer& l : profile.layers) {
    std::optional<std::size_t> match;
    if (auto it = exact.find(l.name); it != exact.end()) {
      match = it->second;
    } else {
      std::set<std::size_t> candidates;
      for (const std::string& part : name_parts(l.name))
        if (auto it = by_part.find(part); it != by_part.end()) candidates.insert(it->second.begin(), it->second.end());
      if (candidates.size() == 1) match = *candidates.begin();
    }
    if (!match) continue;
    const ProfileLayer& w = work.layers[*match];
    used[*match] = true;
    const std::string from = fmt::format(" ({} layer \"{}\")", work.format, w.name);
    if (w.flops) {
      l.flops = w.flops;
      l.flops_provenance = w.flops_provenance;
      l.flops_source = (w.flops_source.empty() ? "flops" : w.flops_source) + from;
    }
    if (w.bytes) {
      l.bytes = w.bytes;
      l.bytes_provenance = w.bytes_provenance;
      l.bytes_from_shapes = w.bytes_from_shapes;
      l.bytes_source = (w.bytes_source.empty() ? "bytes" : w.bytes_source) + from;
    }
  }
  std::vector<std::string> unmatched;
  for (std::size_t i = 0; i < work.layers.size(); ++i)
    if (!used[i]) unmatched.push_back(work.layers[i].name);
  return unmatched;
}

bool is_copy_like(const std::string& op) {
  static const std::set<std::string> copies = {"permute",        "transpose",      "copy",       "memcpy",
                                               "memcpytohost",   "memcpyfromhost", "contiguous", "reshape_copy",
                                               "reshape-with-copy"};
  return copies.count(canonical_op(op)) > 0;
}

}  // namespace harness
