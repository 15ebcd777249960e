#include "harness/levels/stability.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/model/metric_catalogue.h"
#include "probes/workload/cpu_pinning.h"

namespace harness {
namespace {

using nlohmann::json;

// ---- JSON: a figure is its value, or {"unavailable": "<reason>"} ----

template <class T, class To>
json probed_json(const Probed<T>& p, To to) {
  if (p.value) return to(*p.value);
  return json{{"unavailable", p.unavailable}};
}

template <class T, class From>
Probed<T> probed_from(const json& j, const char* key, From from) {
  if (!j.contains(key)) return Probed<T>::missing("not recorded");
  const json& v = j[key];
  if (v.is_object() && v.contains("unavailable") && v["unavailable"].is_string())
    return Probed<T>::missing(v["unavailable"].get<std::string>());
  return Probed<T>::known(from(v));
}

json as_is(const auto& v) { return json(v); }
double as_number(const json& j) { return j.get<double>(); }
std::string as_text(const json& j) { return j.get<std::string>(); }

json cpu_use_json(const CpuUse& u) {
  json busiest = json::array();
  for (const BusyProcess& p : u.busiest) busiest.push_back({{"pid", p.pid}, {"name", p.name}, {"cpu_s", p.cpu_s}});
  return {{"seconds", u.seconds}, {"cpus", u.cpus},       {"busy_s", u.busy_s},
          {"steal_s", u.steal_s}, {"own_s", u.own_s},     {"busiest", busiest}};
}

CpuUse cpu_use_from(const json& j) {
  CpuUse u;
  u.seconds = j.at("seconds").get<double>();
  u.cpus = json_integer<int>(j.at("cpus"));
  u.busy_s = j.at("busy_s").get<double>();
  u.steal_s = j.at("steal_s").get<double>();
  u.own_s = j.at("own_s").get<double>();
  for (const json& p : j.value("busiest", json::array()))
    u.busiest.push_back({json_integer<int>(p.at("pid")), p.at("name").get<std::string>(), p.at("cpu_s").get<double>()});
  return u;
}

json zones_json(const std::vector<ThermalZone>& zones) {
  json out = json::array();
  for (const ThermalZone& z : zones)
    out.push_back({{"zone", z.zone}, {"type", z.type}, {"celsius", probed_json(z.celsius, as_is<double>)}});
  return out;
}

std::vector<ThermalZone> zones_from(const json& j) {
  std::vector<ThermalZone> out;
  for (const json& z : j)
    out.push_back({z.at("zone").get<std::string>(), z.value("type", ""), probed_from<double>(z, "celsius", as_number)});
  return out;
}

// ---- The judgement of one series ----

std::string ghz(double hz) { return fmt::format("{:.3g}", hz * 1e-9); }

const StabilityReading* first_at(const StabilitySeries& s, std::string_view at) {
  for (const StabilityReading& r : s.readings)
    if (r.at == at) return &r;
  return nullptr;
}

const StabilityReading* last_at(const StabilitySeries& s, std::string_view at) {
  for (auto it = s.readings.rbegin(); it != s.readings.rend(); ++it)
    if (it->at == at) return &*it;
  return nullptr;
}

// Why a comparison of the two ends cannot be made, or empty.
std::string ends_missing(const StabilityReading* before, const StabilityReading* after) {
  if (!before) return "no reading before the window";
  if (!after) return "no reading after the window";
  return {};
}

template <class T>
const T* on_cpu(const std::vector<T>& items, int cpu) {
  for (const T& t : items)
    if (t.cpu == cpu) return &t;
  return nullptr;
}

// Decided on the workload CPUs' total canary time (CPU time where both ends
// have it: compared_canary_clock): a busy thread that moves
// from one CPU to another between the ends (level 4's own stress-ng load, a
// neighbour) slows one CPU's canary as much as it speeds up the other's, while
// the CPUs together did not change; each CPU's change is named beside.
void judge_canary(const StabilityReading* before, const StabilityReading* after, double limit, StabilityJudgement& j) {
  if (std::string why = ends_missing(before, after); !why.empty()) {
    j.canary_change = Probed<double>::missing(why);
    return;
  }
  const CanaryClock clock = compared_canary_clock(*before, *after);
  double before_s = 0, after_s = 0;
  std::vector<int> cpus;
  std::string why, each;
  for (const CanaryTime& b : before->canary) {
    const CanaryTime* a = on_cpu(after->canary, b.cpu);
    const Probed<double>& b_s = canary_time(b, clock);
    const Probed<double>* a_s = a ? &canary_time(*a, clock) : nullptr;
    if (!a_s || !b_s || !*a_s || !(*b_s.value > 0)) {
      if (why.empty())
        why = !b_s  ? b_s.unavailable
              : !a_s ? fmt::format("no canary on cpu{} after the window", b.cpu)
                     : a_s->unavailable;
      continue;
    }
    before_s += *b_s.value;
    after_s += *a_s->value;
    cpus.push_back(b.cpu);
    each += fmt::format("{}cpu{} {:+.0f} %", each.empty() ? "" : ", ", b.cpu, 100 * (*a_s->value / *b_s.value - 1));
  }
  if (cpus.empty()) {
    j.canary_change = Probed<double>::missing(why.empty() ? "the canary did not run" : why);
    return;
  }
  const double change = after_s / before_s - 1;
  j.canary_change = Probed<double>::known(change);
  if (std::fabs(change) <= limit) return;
  const std::string on_clock = clock == CanaryClock::cpu ? " in CPU time" : "";
  j.broken.push_back(cpus.size() == 1 ? "canary " + each + on_clock
                                      : fmt::format("canary cpu{} {:+.0f} %{} ({})", cpu_list_text(cpus), 100 * change,
                                                    on_clock, each));
}

// Both ends' clocks were read under the canary's load, so a governor that
// idles the CPU between them does not read as a drop.
void judge_frequency(const StabilityReading* before, const StabilityReading* after, double limit,
                     StabilityJudgement& j) {
  if (std::string why = ends_missing(before, after); !why.empty()) {
    j.cpu_freq_drop = Probed<double>::missing(why);
    return;
  }
  std::optional<double> worst;
  std::string why;
  for (const CpuClock& b : before->cpus) {
    const CpuClock* a = on_cpu(after->cpus, b.cpu);
    if (!a || !b.cur_hz || !a->cur_hz || !(*b.cur_hz.value > 0)) {
      if (why.empty()) why = !b.cur_hz ? b.cur_hz.unavailable : !a ? "no clock reading after the window" : a->cur_hz.unavailable;
      continue;
    }
    const double drop = 1 - *a->cur_hz.value / *b.cur_hz.value;
    worst = std::max(worst.value_or(drop), drop);
    if (drop > limit) j.broken.push_back(fmt::format("cpu{} {}→{} GHz", b.cpu, ghz(*b.cur_hz.value), ghz(*a->cur_hz.value)));
  }
  j.cpu_freq_drop = worst ? Probed<double>::known(*worst) : Probed<double>::missing(why);
}

void judge_throttles(const StabilityReading* before, const StabilityReading* after, std::uint64_t limit,
                     StabilityJudgement& j) {
  if (std::string why = ends_missing(before, after); !why.empty()) {
    j.throttle_increase = Probed<double>::missing(why);
    return;
  }
  std::optional<std::uint64_t> total;
  std::string why;
  std::vector<std::string> increases;
  for (const CpuClock& b : before->cpus) {
    const CpuClock* a = on_cpu(after->cpus, b.cpu);
    if (!a || !b.throttles || !a->throttles) {
      if (why.empty()) why = !b.throttles ? b.throttles.unavailable : !a ? "no reading after the window" : a->throttles.unavailable;
      continue;
    }
    total = total.value_or(0);
    for (const auto& [kind, count] : *b.throttles.value) {
      auto later = a->throttles.value->find(kind);
      if (later == a->throttles.value->end() || later->second <= count) continue;
      *total += later->second - count;
      increases.push_back(fmt::format("cpu{} {}_throttle_count +{}", b.cpu, kind, later->second - count));
    }
  }
  if (!total) {
    j.throttle_increase = Probed<double>::missing(why);
    return;
  }
  j.throttle_increase = Probed<double>::known(static_cast<double>(*total));
  if (*total > limit)
    for (std::string& s : increases) j.broken.push_back(std::move(s));
}

// The first reading against every later one: a zone that heats inside the
// window and cools by its end still counts.
void judge_temperature(const StabilitySeries& s, const StabilityReading* before, double limit, StabilityJudgement& j) {
  if (!before) {
    j.temperature_rise = Probed<double>::missing("no reading before the window");
    return;
  }
  if (!before->thermal) {
    j.temperature_rise = Probed<double>::missing(before->thermal.unavailable);
    return;
  }
  std::optional<double> worst;
  const ThermalZone* worst_zone = nullptr;
  std::string why = "no reading after the window";
  for (const ThermalZone& b : *before->thermal.value) {
    if (!b.celsius) {
      why = b.celsius.unavailable;
      continue;
    }
    for (const StabilityReading& later : s.readings) {
      if (&later == before || !later.thermal) continue;
      for (const ThermalZone& z : *later.thermal.value) {
        if (z.zone != b.zone || !z.celsius) continue;
        const double rise = *z.celsius.value - *b.celsius.value;
        if (!worst || rise > *worst) {
          worst = rise;
          worst_zone = &b;
        }
      }
    }
  }
  if (!worst) {
    j.temperature_rise = Probed<double>::missing(why);
    return;
  }
  j.temperature_rise = Probed<double>::known(*worst);
  if (*worst > limit)
    j.broken.push_back(fmt::format("{}{} {:+.1f} °C", worst_zone->zone,
                                   worst_zone->type.empty() ? "" : " (" + worst_zone->type + ")", *worst));
}

// The worst interval between two readings: others' share of the workload's
// CPUs (steal included), and who the others were.
void judge_others(const StabilitySeries& s, const StabilityReading* before, double limit, StabilityJudgement& j) {
  const CpuUse* worst = nullptr;
  double worst_steal = 0;
  std::string why = "no reading after the window";
  for (const StabilityReading& r : s.readings) {
    if (&r == before) continue;
    if (!r.use) {
      why = r.use.unavailable;
      continue;
    }
    if (!worst || r.use.value->other_share() > worst->other_share()) worst = &*r.use.value;
    worst_steal = std::max(worst_steal, r.use.value->steal_share());
  }
  if (!worst) {
    j.other_cpu_share = j.steal_share = Probed<double>::missing(why);
    return;
  }
  j.other_cpu_share = Probed<double>::known(worst->other_share());
  j.steal_share = Probed<double>::known(worst_steal);
  if (worst->other_share() <= limit) return;
  std::vector<int> cpus;
  if (before)
    for (const CpuClock& c : before->cpus) cpus.push_back(c.cpu);
  std::string who;
  const double capacity = worst->seconds * worst->cpus;
  for (std::size_t i = 0; i < worst->busiest.size() && i < 3; ++i)
    who += fmt::format("{}{} {:.0f} %", who.empty() ? "" : ", ", worst->busiest[i].name,
                       100 * worst->busiest[i].cpu_s / capacity);
  if (worst->steal_share() >= 0.005) who += fmt::format("{}steal {:.0f} %", who.empty() ? "" : "; ", 100 * worst->steal_share());
  j.broken.push_back(fmt::format("others used {:.0f} % of cpu{}{}", 100 * worst->other_share(),
                                 cpus.empty() ? fmt::format("s ({})", worst->cpus) : cpu_list_text(cpus),
                                 who.empty() ? "" : " (" + who + ")"));
}

}  // namespace

CanaryClock compared_canary_clock(const StabilityReading& a, const StabilityReading& b) {
  bool any = false;
  for (const StabilityReading* r : {&a, &b})
    for (const CanaryTime& c : r->canary) {
      if (c.seconds && !c.cpu_seconds) return CanaryClock::wall;
      any = any || static_cast<bool>(c.cpu_seconds);
    }
  return any ? CanaryClock::cpu : CanaryClock::wall;
}

const Probed<double>& canary_time(const CanaryTime& c, CanaryClock clock) {
  return clock == CanaryClock::cpu ? c.cpu_seconds : c.seconds;
}

void to_json(json& j, const StabilityReading& r) {
  json cpus = json::array();
  for (const CpuClock& c : r.cpus)
    cpus.push_back({{"cpu", c.cpu},
                    {"cur_hz", probed_json(c.cur_hz, as_is<double>)},
                    {"max_hz", probed_json(c.max_hz, as_is<double>)},
                    {"governor", probed_json(c.governor, as_is<std::string>)},
                    {"throttles", probed_json(c.throttles, as_is<std::map<std::string, std::uint64_t>>)}});
  json canary = json::array();
  for (const CanaryTime& c : r.canary)
    canary.push_back({{"cpu", c.cpu},
                      {"s", probed_json(c.seconds, as_is<double>)},
                      {"cpu_s", probed_json(c.cpu_seconds, as_is<double>)}});
  j = {{"at", r.at},
       {"t_s", r.t_s},
       {"cpus", cpus},
       {"thermal", probed_json(r.thermal, zones_json)},
       {"load", probed_json(r.load, [](const LoadAverage& l) { return json::array({l.one, l.five, l.fifteen}); })},
       {"use", probed_json(r.use, cpu_use_json)},
       {"canary", canary},
       {"boost", probed_json(r.boost, as_is<std::string>)},
       {"isolated", probed_json(r.isolated, as_is<std::string>)}};
}

void from_json(const json& j, StabilityReading& r) {
  r.at = j.at("at").get<std::string>();
  r.t_s = j.value("t_s", 0.0);
  r.cpus.clear();
  for (const json& c : j.value("cpus", json::array())) {
    CpuClock clock;
    clock.cpu = json_integer<int>(c.at("cpu"));
    clock.cur_hz = probed_from<double>(c, "cur_hz", as_number);
    clock.max_hz = probed_from<double>(c, "max_hz", as_number);
    clock.governor = probed_from<std::string>(c, "governor", as_text);
    clock.throttles = probed_from<std::map<std::string, std::uint64_t>>(
        c, "throttles", [](const json& v) {
          std::map<std::string, std::uint64_t> counts;
          for (const auto& [kind, n] : v.items()) counts[kind] = json_integer<std::uint64_t>(n);
          return counts;
        });
    r.cpus.push_back(std::move(clock));
  }
  r.thermal = probed_from<std::vector<ThermalZone>>(j, "thermal", zones_from);
  r.load = probed_from<LoadAverage>(j, "load", [](const json& v) {
    return LoadAverage{v.at(0).get<double>(), v.at(1).get<double>(), v.at(2).get<double>()};
  });
  r.use = probed_from<CpuUse>(j, "use", cpu_use_from);
  r.canary.clear();
  for (const json& c : j.value("canary", json::array()))
    r.canary.push_back({json_integer<int>(c.at("cpu")), probed_from<double>(c, "s", as_number),
                        probed_from<double>(c, "cpu_s", as_number)});
  r.boost = probed_from<std::string>(j, "boost", as_text);
  r.isolated = probed_from<std::string>(j, "isolated", as_text);
}

void to_json(json& j, const StabilityRecording& r) {
  json series = json::array();
  for (const StabilitySeries& s : r.series)
    series.push_back(
        {{"level", s.level}, {"condition", s.condition}, {"readings", s.readings}, {"unavailable", s.unavailable}});
  j = {{"series", series}};
}

void from_json(const json& j, StabilityRecording& r) {
  r.series.clear();
  for (const json& s : j.at("series")) {
    StabilitySeries series;
    series.level = s.at("level").get<std::string>();
    series.condition = s.value("condition", "");
    series.readings = s.value("readings", std::vector<StabilityReading>{});
    series.unavailable = s.value("unavailable", "");
    r.series.push_back(std::move(series));
  }
}

StabilityJudgement judge_stability(const StabilitySeries& s, const StabilityConfig& limits) {
  StabilityJudgement j;
  if (s.readings.empty()) {
    j.unavailable = s.unavailable.empty() ? "no readings were taken" : s.unavailable;
    j.canary_change = j.cpu_freq_drop = j.temperature_rise = j.throttle_increase = j.other_cpu_share = j.steal_share =
        Probed<double>::missing(j.unavailable);
    return j;
  }
  const StabilityReading* before = first_at(s, "before");
  const StabilityReading* after = last_at(s, "after");
  judge_frequency(before, after, limits.cpu_freq_drop_max, j);
  judge_throttles(before, after, limits.throttle_increase_max, j);
  judge_temperature(s, before, limits.temperature_rise_max_c, j);
  judge_canary(before, after, limits.canary_change_max, j);
  judge_others(s, before, limits.other_cpu_share_max, j);
  if (!j.canary_change && !j.cpu_freq_drop && !j.temperature_rise && !j.throttle_increase && !j.other_cpu_share)
    j.unavailable = fmt::format("nothing could be read (canary: {}; CPU use: {})", j.canary_change.unavailable,
                                j.other_cpu_share.unavailable);
  return j;
}

namespace {

// The figure behind the gate, taken from the judgement where it is worst.
struct Figure {
  const char* name;
  Probed<double> StabilityJudgement::*field;
  bool by_magnitude;  // the canary's change counts either way
};
constexpr Figure kFigures[] = {
    {"canary_change", &StabilityJudgement::canary_change, true},
    {"cpu_freq_drop", &StabilityJudgement::cpu_freq_drop, false},
    {"temperature_rise", &StabilityJudgement::temperature_rise, false},
    {"throttle_increase", &StabilityJudgement::throttle_increase, false},
    {"other_cpu_share", &StabilityJudgement::other_cpu_share, false},
    {"steal_share", &StabilityJudgement::steal_share, false},
};

void emit_level(Level level, const std::vector<const StabilitySeries*>& series, const StabilityConfig& limits,
                Provenance measured, Analysis& out) {
  const std::string prefix = fmt::format("stability.{}", level_name(level));
  const std::string source = fmt::format("rig readings around {} acquisition{}", series.size(),
                                         series.size() == 1 ? "" : "s");
  std::vector<StabilityJudgement> judged;
  for (const StabilitySeries* s : series) judged.push_back(judge_stability(*s, limits));
  std::vector<std::string> broken, unavailable;
  bool judged_any = false;
  for (std::size_t i = 0; i < judged.size(); ++i) {
    const std::string where = series.size() > 1 ? fmt::format("under \"{}\": ", series[i]->condition) : "";
    for (const std::string& b : judged[i].broken) broken.push_back(where + b);
    if (judged[i].unavailable.empty()) judged_any = true;
    else unavailable.push_back(where + judged[i].unavailable);
  }
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
  };
  if (!judged_any) {
    out.metrics.push_back(catalogued_missing(level, prefix, joined(unavailable)));
  } else {
    const bool stable = broken.empty();
    out.metrics.push_back(
        catalogued_metric(level, prefix, stable ? 1 : 0, measured, source, stable ? "stable" : "unstable: " + joined(broken)));
  }
  for (const Figure& f : kFigures) {
    std::optional<double> worst;
    std::string why;
    for (const StabilityJudgement& j : judged) {
      const Probed<double>& p = j.*f.field;
      if (!p) {
        if (why.empty()) why = p.unavailable;
        continue;
      }
      const double v = *p.value;
      if (!worst || (f.by_magnitude ? std::fabs(v) > std::fabs(*worst) : v > *worst)) worst = v;
    }
    const std::string name = prefix + "." + f.name;
    out.metrics.push_back(worst ? catalogued_metric(level, name, *worst, measured, source)
                                : catalogued_missing(level, name, why));
  }
}

}  // namespace

void analyse_stability(const StabilityConfig& limits, const StabilityRecording& recording, Provenance measured,
                       Analysis& out) {
  std::vector<Level> levels;
  for (const StabilitySeries& s : recording.series) {
    // Only the levels whose work runs on the device have the catalogue's
    // stability rows; a recording naming another is not judged.
    std::optional<Level> l = level_from_name(s.level);
    if (!l || !find_catalogue_entry(*l, "stability." + s.level)) continue;
    if (std::find(levels.begin(), levels.end(), *l) == levels.end()) levels.push_back(*l);
  }
  for (Level level : levels) {
    std::vector<const StabilitySeries*> series;
    for (const StabilitySeries& s : recording.series)
      if (s.level == level_name(level)) series.push_back(&s);
    emit_level(level, series, limits, measured, out);
  }
}

}  // namespace harness
