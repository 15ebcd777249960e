#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/scenario/counters_group.h"
#include "harness/base/find_named.h"
#include "harness/model/metric_catalogue.h"
#include "harness/scenario/sections.h"

namespace harness {

namespace {

// A bundle's counter group is one of its listed files, or a shipped group:
// never a path that leaves the bundle (absolute, "..", or unlisted).
Result<std::vector<std::string>> bundle_group_candidates(const std::string& name, const BundleScope& bundle) {
  if (name.find('/') != std::string::npos || name.ends_with(".toml")) {
    std::filesystem::path p(name);
    bool escapes = p.is_absolute();
    for (const std::filesystem::path& part : p) escapes = escapes || part == "..";
    if (escapes || !bundle.files.count(p.lexically_normal().generic_string())) {
      return Error::input(fmt::format("counter group \"{}\" is not a file of the bundle {} (in a bundle, a group "
                                      "named by path must be relative and listed in its manifest)",
                                      name, bundle.dir));
    }
    return std::vector<std::string>{bundle.dir + "/" + p.lexically_normal().generic_string()};
  }
  const std::string own = "groups/" + name + ".toml";
  if (bundle.files.count(own)) return std::vector<std::string>{bundle.dir + "/" + own};
  std::vector<std::string> shipped = counter_group_candidates(name, "");
  return std::vector<std::string>{shipped.back()};
}

void load_groups(TableReader& r, CountersConfig& c) {
  const toml::node* node = r.node("groups");
  std::optional<std::vector<std::string>> names = r.string_array("groups", true);
  if (!node) {
    if (r.ok()) r.fail_missing("groups", "the counter groups to read, e.g. [\"linux-host\"]");
    return;
  }
  if (!names) return;
  if (names->empty()) {
    r.fail_at("groups", "name at least one counter group");
    return;
  }
  const std::string& scenario_path = r.context().path;
  std::map<std::string, std::string> owner;  // counter or metric name -> group
  // Errors point at the group's name in the list, not at the list.
  auto fail_at_name = [&](std::size_t i, const std::string& message) {
    if (node->is_array() && i < node->as_array()->size()) {
      r.context().fail((*node->as_array())[i].source(), fmt::format("[{}] groups: {}", r.name(), message));
    } else {
      r.fail_at("groups", message);
    }
  };
  for (std::size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    std::vector<std::string> candidates;
    if (const BundleScope* bundle = r.context().bundle) {
      Result<std::vector<std::string>> inside = bundle_group_candidates(name, *bundle);
      if (!inside) {
        fail_at_name(i, inside.error().message);
        return;
      }
      candidates = std::move(*inside);
    } else {
      candidates = counter_group_candidates(name, scenario_path);
    }
    auto found = std::find_if(candidates.begin(), candidates.end(),
                              [](const std::string& p) { return std::filesystem::is_regular_file(p); });
    if (found == candidates.end()) {
      std::string looked;
      for (const std::string& p : candidates) looked += (looked.empty() ? "" : ", ") + p;
      fail_at_name(i, fmt::format("no counter group \"{}\" (looked for {}){}", name, looked,
                                  did_you_mean(name, known_counter_groups(scenario_path))));
      return;
    }
    Result<CounterGroup> group = load_counter_group(*found);
    if (!group) {
      if (!r.context().error) r.context().error = group.error();
      return;
    }
    // Each counter and metric name belongs to one group.
    auto claim = [&](const char* what, const std::string& name) {
      if (owner.count(name)) {
        fail_at_name(i, fmt::format("{} {} is defined by both groups \"{}\" and \"{}\"", what, name, owner[name],
                                    group->name));
        return false;
      }
      owner[name] = group->name;
      return true;
    };
    for (const CounterSpec& counter : group->counters)
      if (!claim("counter", counter.name)) return;
    for (const DerivedCounterMetric& m : group->metrics)
      if (!claim("metric", m.name)) return;
    c.groups.push_back(std::move(*group));
  }
}

// [counters.sources.<name>]: a rig's own path or command for a source a
// group declares, so one group file serves every rig with that driver.
void apply_source_overrides(TableReader& r, CountersConfig& c) {
  const toml::table* t = r.table("sources");
  if (!t) return;
  std::vector<std::string> known;
  for (const CounterGroup& g : c.groups)
    for (const CounterSourceSpec& s : g.sources) known.push_back(s.name);
  for (auto&& [name, node] : *t) {
    TableReader sr(r.context(), *t, "counters.sources");
    if (std::find(known.begin(), known.end(), name.str()) == known.end()) {
      sr.fail_at(name.str(), fmt::format("no counter group declares a source \"{}\"{}", name.str(),
                                         did_you_mean(name.str(), known)));
      return;
    }
    if (!node.is_table()) {
      sr.fail_at(name.str(), "must be a table of settings (path, command)");
      return;
    }
    TableReader o(r.context(), *node.as_table(), fmt::format("counters.sources.{}", name.str()));
    std::optional<std::string> path = o.string("path");
    std::optional<std::vector<std::string>> command = o.string_array("command");
    if (command && command->empty()) o.fail_at("command", "the command must not be empty");
    for (CounterGroup& g : c.groups) {
      for (CounterSourceSpec& s : g.sources) {
        if (s.name != name.str()) continue;
        if (path && s.kind != "text_file" && s.kind != "recorded") {
          o.fail_at("path", fmt::format("source \"{}\" is a {} source, which takes no path", s.name, s.kind));
        }
        if (command && s.kind != "command") {
          o.fail_at("command", fmt::format("source \"{}\" is a {} source, which takes no command", s.name, s.kind));
        }
        if (path) s.path = *path;
        if (command) s.command = *command;
      }
    }
    (void)o.finish();
  }
}

// The level-2 catalogue entries whose keys go in [counters.expect]: one
// pattern over the groups' counter and metric names ("counter.<name>").
std::vector<const CatalogueEntry*> counter_expectables() {
  std::vector<const CatalogueEntry*> out;
  for (const CatalogueEntry& e : metric_catalogue(Level::counters))
    if (!e.expect.empty() && e.table_of_keys(Level::counters) == "[counters.expect]") out.push_back(&e);
  return out;
}

// The [counters.expect.baseline] key patterns the catalogue gives an entry
// ("<name>_drop_min", ...: its "baseline." keys).
std::vector<std::string> baseline_key_patterns(const CatalogueEntry& e) {
  constexpr std::string_view kBaseline = "baseline.";
  std::vector<std::string> out;
  for (const std::string& k : e.expectation_keys())
    if (k.starts_with(kBaseline)) out.push_back(k.substr(kBaseline.size()));
  return out;
}

void read_baseline_expectations(TableReader& r, const std::vector<std::string>& names, CountersConfig& c) {
  using Kind = BaselineCounterExpectation::Kind;
  // What each key form the catalogue allows means here.
  struct Suffix {
    std::string_view text;
    Kind kind;
  };
  constexpr Suffix kSuffixes[] = {{"_drop_min", Kind::drop_min}, {"_rise_max", Kind::rise_max}, {"_follows", Kind::follows}};
  struct Known {
    std::string key, counter;
    Kind kind;
  };
  std::vector<Known> allowed;
  std::vector<std::string> keys, forms;
  for (const CatalogueEntry* entry : counter_expectables()) {
    for (const std::string& pattern : baseline_key_patterns(*entry)) {
      const Suffix* suffix = nullptr;
      for (const Suffix& s : kSuffixes)
        if (pattern == std::string(entry->expect) + std::string(s.text)) suffix = &s;
      if (!suffix) throw std::logic_error(fmt::format("counters: no meaning for the catalogue's key {}", pattern));
      std::string form = pattern;
      form.replace(0, entry->expect.size(), "<counter>");
      forms.push_back(form);
      for (const std::string& n : names) {
        allowed.push_back({instance_name(pattern, {n}), n, suffix->kind});
        keys.push_back(allowed.back().key);
      }
    }
  }
  for (auto&& [key_node, node] : r.table()) {
    std::string key(key_node.str());
    auto k = std::find_if(allowed.begin(), allowed.end(), [&](const Known& x) { return x.key == key; });
    if (k == allowed.end()) continue;  // reported below
    const std::string& counter = k->counter;
    BaselineCounterExpectation e;
    e.kind = k->kind;
    e.key = key;
    e.counter = counter;
    e.where = r.context().where(node.source());
    if (e.kind == Kind::follows) {
      std::optional<std::string> lead = r.string(key);
      if (!lead) return;
      if (std::find(names.begin(), names.end(), *lead) == names.end()) {
        r.fail_at(key, fmt::format("no counter or metric \"{}\" in the groups{}", *lead, did_you_mean(*lead, names)));
        return;
      }
      if (*lead == counter) {
        r.fail_at(key, "a counter cannot follow itself");
        return;
      }
      e.lead = *lead;
    } else {
      std::optional<double> f = r.fraction(key);
      if (!f) return;
      e.fraction = *f;
    }
    c.baseline_expectations.push_back(std::move(e));
  }
  if (!r.ok()) return;
  // An unknown key: suggest the closest valid one.
  for (auto&& [key_node, node] : r.table()) {
    std::string key(key_node.str());
    bool known = std::any_of(c.baseline_expectations.begin(), c.baseline_expectations.end(),
                             [&](const BaselineCounterExpectation& e) { return e.key == key; });
    if (known) continue;
    std::string expected;
    for (std::size_t i = 0; i < forms.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == forms.size() ? " or " : ", ") + forms[i];
    std::string message = fmt::format("unknown key '{}' in [{}] (expected {})", key, r.name(), expected);
    if (auto near = closest_match(key, keys)) message += fmt::format("; did you mean '{}'?", *near);
    r.context().fail(key_node.source(), message);
    return;
  }
}

// `windows`, or `read_each_iteration = true` for as many windows as iterations.
void read_windows(TableReader& r, CountersConfig& c) {
  const std::optional<bool> each = r.boolean("read_each_iteration");
  const std::optional<std::int64_t> windows = r.integer("windows", 1, 1'000'000);
  if (!r.ok()) return;
  if (each && *each && windows && *windows != c.iterations) {
    r.fail_at("windows", fmt::format("is {} but read_each_iteration = true reads {} windows, one per iteration: "
                                     "set one of the two",
                                     *windows, c.iterations));
    return;
  }
  if (windows && *windows > c.iterations) {
    r.fail_at("windows", fmt::format("is {}, more than the {} iteration{} to read them over", *windows, c.iterations,
                                     c.iterations == 1 ? "" : "s"));
    return;
  }
  c.windows = each && *each ? c.iterations : windows.value_or(1);
}

}  // namespace

CountersConfig read_counters_section(TableReader& r) {
  CountersConfig c;
  load_groups(r, c);
  if (auto n = r.integer("iterations", 1, 1'000'000)) c.iterations = *n;
  read_windows(r, c);
  apply_source_overrides(r, c);
  // The keys are the catalogue's ("counter.<name>": <name>_min, _max and
  // the baseline forms) for every counter and derived metric of the groups.
  std::vector<std::string> names;
  std::vector<std::optional<Dimension>> dimensions;
  for (const CounterGroup& g : c.groups) {
    for (const CounterSpec& counter : g.counters) {
      names.push_back(counter.name);
      dimensions.push_back(std::nullopt);
    }
    for (const DerivedCounterMetric& m : g.metrics) {
      names.push_back(m.name);
      dimensions.push_back(m.unit == "B" ? std::optional<Dimension>(Dimension::size) : std::nullopt);
    }
  }
  std::vector<ExpectableMetric> expectable;
  for (const CatalogueEntry* e : counter_expectables()) {
    if (!(e->forms & kExpectBounds)) continue;
    for (std::size_t i = 0; i < names.size(); ++i)
      expectable.push_back({instance_name(e->expect, {names[i]}), instance_name(e->name, {names[i]}), dimensions[i], false, {}});
  }
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "counters.expect");
    c.expectations = read_expectations(er, Level::counters, expectable);
    // Known keys, so that a typo gets "did you mean" from finish().
    for (const ExpectableMetric& m : expectable) {
      er.allow(m.key + "_min");
      er.allow(m.key + "_max");
    }
    if (const toml::table* b = er.table("baseline")) {
      TableReader br(r.context(), *b, "counters.expect.baseline");
      read_baseline_expectations(br, names, c);
    }
    (void)er.finish();
  }
  return c;
}

}  // namespace harness
