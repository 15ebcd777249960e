// Chrome's Trace Event Format (what chrome://tracing and Perfetto open, and
// what QNN's qnn-profile-viewer writes with its Chrome trace reader): a bare
// array of events, or an object whose "traceEvents" is that array (beside
// "displayTimeUnit", "otherData", ...). Slices are "X" events (ts, dur) and
// "B"/"E" pairs matched per pid/tid; ts and dur are microseconds whatever
// displayTimeUnit says (it only sets how a viewer displays them). Every
// other phase (instant, counter, async, flow, metadata) is no layer.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "probes/profile/reader_support.h"
#include "probes/profile/readers.h"

namespace harness::profile_reading {
namespace {

std::string text_member(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const nlohmann::json* event_array(const nlohmann::json& doc) {
  if (doc.is_array()) return &doc;
  if (doc.is_object()) {
    auto it = doc.find("traceEvents");
    if (it != doc.end() && it->is_array()) return &*it;
  }
  return nullptr;
}

struct TraceSlice {
  std::size_t event;  // where it begins
  std::string name;
  Slice slice;
};

// A slice's op as the trace's args name it, else its category.
std::string op_of(const nlohmann::json& e) {
  if (auto args = e.find("args"); args != e.end() && args->is_object())
    for (const char* key : {"op_type", "op_name", "op", "type"})
      if (std::string v = text_member(*args, key); !v.empty()) return v;
  return text_member(e, "cat");
}

Result<double> time_member(const nlohmann::json& e, const char* key, const std::string& where, const std::string& name) {
  Result<std::optional<double>> v = json_number(e, key, where);
  if (!v) return v.error();
  if (!*v) return Error::input(fmt::format("{}: event \"{}\" has no \"{}\"", where, name, key));
  if (**v < 0) {
    return Error::input(fmt::format("{}: event \"{}\": negative {} {} us", where, name,
                                    std::string(key) == "dur" ? "duration" : "timestamp", **v));
  }
  return **v;
}

std::string track_of(const nlohmann::json& e) {
  return fmt::format("{}:{}", e.value("pid", nlohmann::json()).dump(), e.value("tid", nlohmann::json()).dump());
}

Result<std::vector<TraceSlice>> slices_of(const JsonProfile& in, const nlohmann::json& events) {
  std::vector<TraceSlice> out;
  std::map<std::string, std::vector<TraceSlice>> open;  // per track: B events waiting for their E
  for (std::size_t i = 0; i < events.size(); ++i) {
    const nlohmann::json& e = events[i];
    const std::string where = in.where(i);
    if (!e.is_object()) return Error::input(fmt::format("{}: expected an event object, got {}", where, e.type_name()));
    const std::string ph = text_member(e, "ph"), name = text_member(e, "name");
    if (ph != "X" && ph != "B" && ph != "E") continue;
    Result<double> ts = time_member(e, "ts", where, name);
    if (!ts) return ts.error();
    const std::string track = track_of(e);
    if (ph == "X") {
      Result<double> dur = time_member(e, "dur", where, name);
      if (!dur) return dur.error();
      out.push_back({i, name, {track, *ts, *ts + *dur}});
    } else if (ph == "B") {
      open[track].push_back({i, name, {track, *ts, *ts}});
    } else {
      std::vector<TraceSlice>& stack = open[track];
      if (stack.empty()) {
        return Error::input(fmt::format("{}: an \"E\" event with no open \"B\" event on pid:tid {}", where, track));
      }
      TraceSlice s = std::move(stack.back());
      stack.pop_back();
      if (*ts < s.slice.start) {
        return Error::input(fmt::format("{}: \"E\" event of \"{}\" ends before it began ({} us < {} us)", where, s.name,
                                        *ts, s.slice.start));
      }
      s.slice.end = *ts;
      out.push_back(std::move(s));
    }
  }
  for (const auto& [track, stack] : open) {
    if (!stack.empty()) {
      return Error::input(fmt::format("{}: \"B\" event of \"{}\" has no \"E\" event", in.where(stack.back().event),
                                      stack.back().name));
    }
  }
  return out;
}

}  // namespace

bool looks_like_chrome_trace(const nlohmann::json& doc) {
  const nlohmann::json* events = event_array(doc);
  if (!events) return false;
  if (doc.is_object()) return true;  // {"traceEvents": [...]}
  for (const nlohmann::json& e : *events)
    if (e.is_object() && e.contains("ph")) return true;
  return false;
}

Result<LayerProfile> read_chrome_trace(const JsonProfile& in, const ProfileReadOptions& options) {
  const nlohmann::json* events = event_array(in.doc);
  if (!events) {
    return Error::input(fmt::format("{}: expected a Chrome trace: an array of events or an object with \"traceEvents\"",
                                    in.path));
  }
  Result<std::vector<TraceSlice>> slices = slices_of(in, *events);
  if (!slices) return slices.error();
  if (slices->empty()) return Error::input(fmt::format("{}: the trace has no slices (\"X\" or \"B\"/\"E\" events)", in.path));
  LayerProfile p;
  p.format = "chrome-trace";
  p.runs = options.runs.value_or(1);
  std::vector<Slice> plain;
  for (const TraceSlice& s : *slices) plain.push_back(s.slice);
  // Nested slices (a graph's execution around its ops) keep only their own
  // time, so that no time is counted twice.
  std::vector<bool> parents;
  std::vector<double> self = self_times(plain, &parents);
  LayerCollector layers;
  for (std::size_t k = 0; k < slices->size(); ++k) {
    const TraceSlice& s = (*slices)[k];
    const nlohmann::json& e = (*events)[s.event];
    if (!layers.has(s.name)) {
      ProfileLayer& l = layers.layer(s.name, in.where(s.event));
      l.op = op_of(e);
      if (auto args = e.find("args"); args != e.end() && args->is_object()) {
        l.device_text = text_member(*args, "provider");
        l.device = provider_device(l.device_text);
      }
    }
    layers.add_call(s.name, 0, self[k] * 1e-6);
    // The idle gaps lie between the innermost slices.
    if (!parents[k]) p.kernels.push_back({s.slice.start * 1e-6, s.slice.end * 1e-6, 0, layers.index_of(s.name)});
  }
  layers.finish(p, p.runs);
  p.has_start = true;
  p.device_known = std::all_of(p.layers.begin(), p.layers.end(),
                               [](const ProfileLayer& l) { return l.device != LayerDevice::unknown; });
  if (in.doc.is_object()) {
    if (std::string unit = text_member(in.doc, "displayTimeUnit"); !unit.empty())
      p.notes.push_back(fmt::format("displayTimeUnit \"{}\" sets only how viewers display times; ts/dur are microseconds",
                                    unit));
  }
  if (p.runs > 1) p.notes.push_back(fmt::format("times are per inference: each layer's total / {} runs", p.runs));
  return p;
}

}  // namespace harness::profile_reading
