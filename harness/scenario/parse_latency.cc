#include <cctype>
#include <set>

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "harness/scenario/sections.h"
#include "probes/power/power_source.h"  // power_source_names

namespace harness {
namespace {

// The [latency.expect] bounds: the catalogue's level-4 entries (the first
// load condition's metrics).
const std::vector<ExpectableMetric>& latency_expectables() {
  static const std::vector<ExpectableMetric> k = catalogue_expectables(Level::latency, "");
  return k;
}

// "stress-ng --cpu 1" -> "stress-ng-cpu-1": the metric prefix of a load.
std::string load_name(const std::vector<std::string>& argv) {
  std::string name;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string word = argv[i];
    if (i == 0 && word.find('/') != std::string::npos) word = word.substr(word.rfind('/') + 1);
    std::size_t start = word.find_first_not_of('-');
    if (start == std::string::npos) continue;
    std::string part;
    for (char c : word.substr(start)) {
      part += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    }
    if (!name.empty()) name += '-';
    name += part;
  }
  return name;
}

// "stress-ng --cpu 1" split at blanks; quotes are refused rather than
// interpreted, since no shell ever sees this text.
std::optional<std::vector<std::string>> split_words(const std::string& text) {
  if (text.find_first_of("\"'\\$`|;&<>") != std::string::npos) return std::nullopt;
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

std::vector<LoadCondition> read_loads(TableReader& r) {
  std::vector<LoadCondition> out;
  const toml::node* n = r.node("load");
  if (!n) return {{"none", {}, ""}};
  auto fail = [&](const toml::node& at, const std::string& message) { r.fail_at_node(at, fmt::format("load: {}", message)); };
  std::vector<const toml::node*> entries;
  if (n->is_array()) {
    for (const toml::node& e : *n->as_array()) entries.push_back(&e);
  } else {
    entries.push_back(n);  // a single condition
  }
  if (entries.empty()) fail(*n, "needs at least one condition, such as \"none\"");
  std::set<std::string> names;
  for (const toml::node* e : entries) {
    LoadCondition c;
    c.where = r.context().where(e->source());
    if (e->is_string()) {
      std::string text(e->as_string()->get());
      std::optional<std::vector<std::string>> words = split_words(text);
      if (!words) {
        fail(*e, fmt::format("\"{}\" has quotes or shell characters; no shell runs it: write the command "
                             "as an array of arguments instead", text));
        return out;
      }
      if (words->empty()) {
        fail(*e, "an empty command; write \"none\" for no load");
        return out;
      }
      if (*words != std::vector<std::string>{"none"}) c.argv = std::move(*words);
    } else if (e->is_array()) {
      for (const toml::node& w : *e->as_array()) {
        if (!w.is_string()) {
          fail(w, fmt::format("a command array must hold only strings, got {}", toml_type_noun(w.type())));
          return out;
        }
        c.argv.emplace_back(w.as_string()->get());
      }
      if (c.argv.empty()) {
        fail(*e, "an empty command; write \"none\" for no load");
        return out;
      }
    } else {
      fail(*e, fmt::format("each condition must be \"none\", a command string or an array of arguments, got {}",
                           toml_type_noun(e->type())));
      return out;
    }
    c.name = c.argv.empty() ? "none" : load_name(c.argv);
    if (c.name.empty()) c.name = "load";  // argv of dashes only: its metrics still need a prefix
    if (!names.insert(c.name).second) {
      fail(*e, fmt::format("condition \"{}\" is listed twice", c.name));
      return out;
    }
    out.push_back(std::move(c));
  }
  return out;
}

PowerConfig read_power(TableReader& r) {
  PowerConfig p;
  p.source = r.choice("source", power_source_names()).value_or("none");
  if (auto d = r.quantity("interval", Dimension::time)) {
    if (*d < 0.001) r.fail_at("interval", "must be at least 1 ms");
    p.interval_s = *d;
  }
  p.root = r.string("root").value_or("");
  p.sensor = r.string("sensor").value_or("");
  p.command = r.string_array("command").value_or(std::vector<std::string>{});
  p.unit = r.choice("unit", {"W", "J"}).value_or("");
  p.file = r.string("file").value_or("");
  p.driver = r.string("driver").value_or("");
  p.connection = r.string("connection").value_or("");
  p.channels = r.string_array("channels", true).value_or(std::vector<std::string>{});
  if (auto f = r.quantity("samplerate", Dimension::frequency)) {
    // The demo driver is paced to real time and meters read a few times a
    // second: a power trace needs no more than this.
    if (*f < 1 || *f > 100e3) r.fail_at("samplerate", "must be from 1 Hz to 100 kHz");
    p.samplerate = *f;
  }
  p.read_as = r.choice("read_as", {"power"}).value_or("");
  if (!r.ok()) return p;
  if (p.source == "meter" && p.command.empty()) r.fail_missing("command", "source \"meter\" runs it");
  if (p.source == "trace" && p.file.empty()) r.fail_missing("file", "source \"trace\" reads it");
  if (p.source != "meter" && !p.command.empty()) r.fail_at("command", "only source \"meter\" runs a command");
  if (p.source != "trace" && !p.file.empty()) r.fail_at("file", "only source \"trace\" reads a file");
  if (p.source != "hwmon" && p.source != "auto" && !p.sensor.empty())
    r.fail_at("sensor", "only sources \"hwmon\" and \"auto\" pick a sensor");
  if (p.source == "sigrok") {
    if (p.driver.empty()) r.fail_missing("driver", "source \"sigrok\" opens it (\"demo\", \"fluke-dmm\"...)");
    else if (p.channels.empty())
      r.fail_missing("channels", "source \"sigrok\" reads one power or energy channel, or a voltage and a current channel");
    else if (p.channels.size() > 2)
      r.fail_at("channels", "names one power or energy channel, or a voltage and a current channel");
    else if (p.channels.size() == 2 && p.channels[0] == p.channels[1])
      r.fail_at("channels", fmt::format("names \"{}\" twice", p.channels[0]));
    else if (!p.read_as.empty() && p.channels.size() != 1)
      r.fail_at("read_as", "reads one channel as watts: name exactly one channel");
  } else {
    for (const char* key : {"driver", "connection", "channels", "samplerate", "read_as"})
      if (r.has(key)) {
        r.fail_at(key, "only source \"sigrok\" takes it");
        break;
      }
  }
  return p;
}

}  // namespace

LatencyConfig read_latency_section(TableReader& r) {
  LatencyConfig c;
  if (auto n = r.integer("iterations", 1, 100'000'000)) c.iterations = *n;
  if (auto n = r.integer("warmup", 0, 1'000'000)) c.warmup = *n;
  if (auto d = r.quantity("min_duration", Dimension::time)) c.min_duration_s = *d;
  if (auto d = r.quantity("timeout", Dimension::time)) c.run_timeout_s = *d;
  if (auto d = r.quantity("load_settle", Dimension::time)) c.load_settle_s = *d;
  if (auto x = r.number("confidence")) {
    if (!(*x >= 0.5 && *x < 1)) r.fail_at("confidence", "must be at least 0.5 and below 1, such as 0.95");
    c.confidence = *x;
  }
  c.loads = read_loads(r);
  if (const toml::table* t = r.table("power")) {
    TableReader pr(r.context(), *t, "latency.power");
    c.power = read_power(pr);
    (void)pr.finish();
  }
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "latency.expect");
    c.expectations = read_expectations(er, Level::latency, latency_expectables());
    auto baseline_expectation = [&](std::string_view key, std::string metric) {
      return Expectation{.level = Level::latency,
                         .key = std::string(key),
                         .metric = std::move(metric),
                         .bound = Bound::max,
                         .number = 0,
                         .text = {},
                         .unit = std::string("1"),
                         .where = r.context().where(er.node(key)->source())};
    };
    // The baseline-relative keys and the metrics they judge are the catalogue's.
    const CatalogueEntry& gain = *find_catalogue_entry(Level::latency, "efficiency_gain");
    const CatalogueEntry& power = *find_catalogue_entry(Level::latency, "power_over_baseline");
    const std::string gain_key = gain.expectation_keys().front(), power_key = power.expectation_keys().front();
    if (er.has(gain_key)) {
      if (auto x = er.number(gain_key)) {
        Expectation e = baseline_expectation(gain_key, std::string(gain.name));
        e.bound = Bound::min;
        e.number = *x;
        c.efficiency_gain_min = e;
      }
    }
    if (er.has(power_key)) {
      if (auto b = er.boolean(power_key); b && *b) {
        Expectation e = baseline_expectation(power_key, std::string(power.name));
        e.bound = Bound::max;
        e.number = 1;
        c.power_not_above_baseline = e;
      }
    }
    // In a run without a baseline these read "unavailable: needs a baseline"
    // (analyse_latency produces the metrics as missing).
    if (c.efficiency_gain_min) c.expectations.push_back(*c.efficiency_gain_min);
    if (c.power_not_above_baseline) c.expectations.push_back(*c.power_not_above_baseline);
    (void)er.finish();
  }
  if (r.ok() && c.iterations < 1) r.fail_at("iterations", "must be at least 1");
  return c;
}

}  // namespace harness
