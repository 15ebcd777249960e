#include "harness/scenario/counters_group.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/base/find_named.h"
#include "harness/base/input_limits.h"
#include "harness/scenario/toml_reader.h"
#include "probes/counters/sources.h"

namespace harness {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

CounterSourceSpec read_source(TableReader& r, const std::string& name, const CounterSourceKind*& kind_out) {
  CounterSourceSpec s;
  s.name = name;
  s.where = r.context().where(r.table().source());
  kind_out = nullptr;
  const toml::node* kind_node = r.node("kind");
  if (!kind_node) {
    if (r.ok()) r.fail_missing("kind", "one of the counter source kinds");
    return s;
  }
  std::optional<std::string> kind = r.string("kind");
  if (!kind) return s;
  Result<const CounterSourceKind*> k = find_counter_source_kind(*kind);
  if (!k) {
    r.fail_at("kind", k.error().message);
    return s;
  }
  kind_out = *k;
  s.kind = *kind;
  for (const std::string& key : (*k)->required_source_keys) {
    if (!r.has(key) && r.ok()) r.fail_missing(key, fmt::format("a {} source needs it", s.kind));
  }
  auto accepts = [&](const char* key) {
    return std::find((*k)->source_keys.begin(), (*k)->source_keys.end(), key) != (*k)->source_keys.end();
  };
  if (accepts("path")) s.path = r.string("path").value_or("");
  if (accepts("command")) {
    s.command = r.string_array("command").value_or(std::vector<std::string>{});
    if (r.ok() && s.command.empty()) r.fail_at("command", "the command must not be empty");
  }
  if (accepts("deltas")) s.deltas = r.boolean("deltas").value_or(false);
  if (accepts("timeout")) {
    if (auto t = r.quantity("timeout", Dimension::time)) {
      if (*t <= 0) r.fail_at("timeout", "must be positive");
      s.timeout_s = *t;
    }
  }
  if (auto w = r.integer("width", 1, 64)) {
    if (*w != 32 && *w != 48 && *w != 64) r.fail_at("width", fmt::format("must be 32, 48 or 64 bits, got {}", *w));
    s.width = static_cast<int>(*w);
  }
  return s;
}

CounterSpec read_counter(TableReader& r, const std::string& name, const std::vector<CounterSourceSpec>& sources,
                         const std::vector<const CounterSourceKind*>& kinds) {
  CounterSpec c;
  c.name = name;
  c.where = r.context().where(r.table().source());
  std::size_t index = 0;
  if (r.has("source")) {
    std::string source = r.string("source").value_or("");
    std::vector<std::string> names;
    for (const CounterSourceSpec& s : sources) names.push_back(s.name);
    auto it = std::find(names.begin(), names.end(), source);
    if (it == names.end()) {
      if (!r.ok()) return c;
      r.fail_at("source", fmt::format("no source \"{}\" in this group ([sources.{}] is not declared){}", source,
                                      source, did_you_mean(source, names)));
      return c;
    }
    index = static_cast<std::size_t>(it - names.begin());
  } else if (sources.size() != 1) {
    if (r.ok()) r.fail_missing("source", "the group declares several sources");
    return c;
  }
  if (index >= sources.size() || !kinds[index]) return c;
  c.source = sources[index].name;
  const CounterSourceKind& kind = *kinds[index];
  if (!kind.counter_key.empty()) {
    const std::string& key = kind.counter_key;
    if (!r.has(key) && kind.counter_key_required && r.ok()) {
      r.fail_missing(key, fmt::format("a counter of a {} source needs it", kind.name));
    }
    std::string value = r.string(key).value_or("");
    if (r.ok() && r.has(key)) {
      std::string problem = check_counter_setting(kind, value);
      if (!problem.empty()) r.fail_at(key, problem);
    }
    if (key == "event") c.event = value;
    else if (key == "key") c.key = value;
    else if (key == "pattern") c.pattern = value;
  }
  if (auto s = r.number("scale")) {
    if (*s <= 0) r.fail_at("scale", "must be positive");
    c.scale = *s;
  }
  if (auto w = r.integer("width", 1, 64)) {
    if (*w != 32 && *w != 48 && *w != 64) r.fail_at("width", fmt::format("must be 32, 48 or 64 bits, got {}", *w));
    c.width = static_cast<int>(*w);
  }
  c.unit = r.string("unit").value_or("events");
  return c;
}

// "path:line:col" of a column inside a formula string: the string's node
// starts at its opening quote.
void fail_in_formula(ParseContext& context, const toml::node& node, std::size_t column, const std::string& message) {
  if (context.error) return;
  toml::source_region region = node.source();
  region.begin.column += static_cast<toml::source_index>(column);
  context.fail(region, message);
}

}  // namespace

Result<CounterGroup> parse_counter_group(std::string text, std::string path) {
  ParseContext context{path, std::nullopt, nullptr, {}};
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const toml::parse_error& e = parsed.error();
    return Error::input(fmt::format("{}: {}", context.where(e.source()), e.description()));
  }
  CounterGroup g;
  g.path = path;
  g.sha256 = sha256_hex(text);
  TableReader top(context, parsed.table(), "top level");
  g.name = top.required_string("name");
  g.description = top.string("description").value_or("");

  std::vector<const CounterSourceKind*> kinds;
  if (const toml::table* t = top.table("sources")) {
    for (auto&& [name, node] : *t) {
      TableReader sr(context, *t, "sources");
      if (!node.is_table()) {
        sr.fail_at(name.str(), fmt::format("must be a table ([sources.{}] with kind = ...)", name.str()));
        break;
      }
      TableReader r(context, *node.as_table(), fmt::format("sources.{}", name.str()));
      const CounterSourceKind* kind = nullptr;
      g.sources.push_back(read_source(r, std::string(name.str()), kind));
      kinds.push_back(kind);
      (void)r.finish();
    }
  }
  if (!context.error && g.sources.empty()) context.fail_file("a counter group needs at least one [sources.<name>] table");

  std::vector<std::string> counter_names;
  if (const toml::table* t = top.table("counters")) {
    for (auto&& [name, node] : *t) {
      if (context.error) break;
      TableReader cr(context, *t, "counters");
      if (!is_identifier(name.str())) {
        context.fail(name.source(), fmt::format("counter name '{}' must be a letter or '_' followed by letters, "
                                                "digits or '_' (formulas refer to it)", name.str()));
        break;
      }
      if (!node.is_table()) {
        cr.fail_at(name.str(), fmt::format("must be a table ([counters.{}] with source = ...)", name.str()));
        break;
      }
      TableReader r(context, *node.as_table(), fmt::format("counters.{}", name.str()));
      g.counters.push_back(read_counter(r, std::string(name.str()), g.sources, kinds));
      counter_names.emplace_back(name.str());
      (void)r.finish();
    }
  }
  if (!context.error && g.counters.empty()) context.fail_file("a counter group needs at least one [counters.<NAME>] table");

  if (const toml::table* t = top.table("metrics")) {
    TableReader mr(context, *t, "metrics");
    for (auto&& [name, node] : *t) {
      if (context.error) break;
      mr.allow(name.str());
      DerivedCounterMetric m;
      m.name = std::string(name.str());
      m.unit = m.name == "bytes" ? "B" : "1";
      if (m.name == "bytes") m.better = Better::none;
      m.where = context.where(node.source());
      if (!is_identifier(m.name)) {
        context.fail(name.source(), fmt::format("metric name '{}' must be a letter or '_' followed by letters, "
                                                "digits or '_'", m.name));
        break;
      }
      if (std::find(counter_names.begin(), counter_names.end(), m.name) != counter_names.end()) {
        context.fail(name.source(), fmt::format("metric '{}' has the name of a counter", m.name));
        break;
      }
      const toml::node* formula_node = &node;
      if (node.is_table()) {
        TableReader r(context, *node.as_table(), fmt::format("metrics.{}", m.name));
        formula_node = r.node("formula");
        if (!formula_node) {
          if (r.ok()) r.fail_missing("formula", "e.g. \"MEM_STALL_CYCLES / CYCLES\"");
          break;
        }
        m.unit = r.string("unit").value_or(m.unit);
        if (auto b = r.choice("better", {"lower", "higher", "none"})) m.better = *better_from_name(*b);
        (void)r.finish();
      }
      if (!formula_node->is_string()) {
        context.fail(formula_node->source(),
                     fmt::format("[metrics] {} must be a formula string such as \"A / B\", got {}", m.name,
                                 toml_type_noun(formula_node->type())));
        break;
      }
      std::string text(formula_node->as_string()->get());
      FormulaParse p = parse_formula(text);
      if (!p.formula) {
        fail_in_formula(context, *formula_node, p.error.column,
                        fmt::format("[metrics] {}: {}", m.name, p.error.message));
        break;
      }
      for (const std::string& used : p.formula->names()) {
        if (std::find(counter_names.begin(), counter_names.end(), used) != counter_names.end()) continue;
        std::size_t at = text.find(used);
        std::string message = fmt::format("[metrics] {}: unknown counter '{}'", m.name, used);
        if (auto near = closest_match(used, counter_names)) message += fmt::format("; did you mean '{}'?", *near);
        fail_in_formula(context, *formula_node, at + 1, message);
        break;
      }
      m.formula = *p.formula;
      g.metrics.push_back(std::move(m));
    }
    (void)mr.finish();
  }
  HARNESS_TRY(top.finish());
  if (context.error) return *context.error;
  return g;
}

Result<CounterGroup> load_counter_group(const std::string& path) {
  Result<std::string> text = read_regular_file(path, kMaxScenarioBytes, "counter group");
  if (!text) return text.error();
  return parse_counter_group(std::move(*text), path);
}

namespace {

std::string folder_of(const std::string& path) {
  std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// The groups that ship with harness: installed beside the binary
// (<prefix>/share/harness/scenarios/groups, cmake --install), else those of
// the source tree it was built from.
std::string shipped_groups() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path installed = exe.parent_path().parent_path() / "share/harness/scenarios/groups";
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return std::string(HARNESS_SOURCE_DIR) + "/scenarios/groups";
}

}  // namespace

std::vector<std::string> counter_group_candidates(const std::string& name, const std::string& scenario_path) {
  const std::string folder = folder_of(scenario_path);
  if (name.find('/') != std::string::npos || name.ends_with(".toml")) {
    if (!name.empty() && name.front() == '/') return {name};
    return {folder + "/" + name};
  }
  return {folder + "/groups/" + name + ".toml", shipped_groups() + "/" + name + ".toml"};
}

std::vector<std::string> known_counter_groups(const std::string& scenario_path) {
  std::vector<std::string> out;
  for (const std::string& dir : {folder_of(scenario_path) + "/groups", shipped_groups()}) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".toml") out.push_back(entry.path().stem().string());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace harness
