#include "probes/counters/sources.h"

#include <cctype>
#include <charconv>
#include <regex>

#include <fmt/format.h>

#include "harness/base/find_named.h"
#include "probes/counters/factories.h"

namespace harness {

const std::vector<CounterSourceKind>& counter_source_kinds() {
  static const std::vector<CounterSourceKind> kinds = {
      {"perf_event",
       "Linux perf_event_open: generic, hardware-cache, raw (type/config) and sysfs PMU events of the workload",
       {}, {}, "event", true, &make_perf_event_source},
      {"text_file",
       "sysfs/debugfs text: a file of 'key: value' or 'key=value' lines, or a directory of one-number files",
       {"path"}, {"path"}, "key", true, &make_text_file_source},
      {"command",
       "a vendor tool run before and after the workload (or once after, with deltas = true); "
       "a regular expression per counter picks the value",
       {"command", "deltas", "timeout"}, {"command"}, "pattern", true, &make_command_source},
      {"recorded",
       "readings recorded earlier, a JSON file of snapshots: replays a rig's counters without the rig",
       {"path"}, {"path"}, "key", false, &make_recorded_source},
  };
  return kinds;
}

Result<const CounterSourceKind*> find_counter_source_kind(std::string_view name) {
  std::vector<std::string> names;
  if (const CounterSourceKind* kind = find_named(counter_source_kinds(), name, names)) return kind;
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + ("\"" + n + "\"");
  return Error::input(fmt::format("unknown counter source kind \"{}\" (expected one of {}){}", name, list,
                                  did_you_mean(name, names)));
}

std::string check_counter_setting(const CounterSourceKind& kind, const std::string& value) {
  if (kind.name == "perf_event") {
    Result<PerfEventCode> code = parse_perf_event_name(value);
    return code ? "" : code.error().message;
  }
  if (kind.name == "command") {
    try {
      std::regex re(value, std::regex::ECMAScript);
      if (re.mark_count() > 1) return fmt::format("pattern \"{}\" has {} groups; use one, around the value", value, re.mark_count());
    } catch (const std::regex_error& e) {
      return fmt::format("pattern \"{}\" is not a valid regular expression: {}", value, e.what());
    }
  }
  return "";
}

std::optional<std::uint64_t> parse_counter_value(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace harness
