#include "harness/levels/counters.h"

#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/result.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

std::string number(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

namespace {

// A perf counter's factor enabled / running over one step of its readings,
// or that it never ran in the step, or that its times went backwards.
struct Multiplexing {
  double factor = 1;
  bool never_ran = false;
  bool backwards = false;
};
Multiplexing multiplexing(std::uint64_t enabled_from, std::uint64_t enabled_to, std::uint64_t running_from,
                          std::uint64_t running_to) {
  Multiplexing m;
  if (enabled_to < enabled_from || running_to < running_from) {
    m.backwards = true;
    return m;
  }
  const std::uint64_t enabled = enabled_to - enabled_from, running = running_to - running_from;
  if (running == 0) m.never_ran = true;
  else if (running < enabled) m.factor = static_cast<double>(enabled) / static_cast<double>(running);
  return m;
}

}  // namespace

CounterDelta counter_delta(const CounterReading& c) {
  CounterDelta out;
  const int width = c.width < 1 || c.width > 64 ? 64 : c.width;
  const std::uint64_t max = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  auto too_wide = [&](std::uint64_t v) {
    out.unavailable = fmt::format("value {} does not fit the declared {}-bit counter width", v, width);
    return out;
  };
  std::uint64_t raw = 0;
  std::vector<std::uint64_t> steps;  // the change between consecutive readings
  if (c.delta) {
    if (*c.delta > max) return too_wide(*c.delta);
    raw = *c.delta;
  } else {
    if (!c.before) {
      out.unavailable = c.unavailable.empty() ? "no reading before the workload" : c.unavailable;
      return out;
    }
    if (!c.after) {
      out.unavailable = fmt::format("vanished during the run (read {} before the workload): {}", *c.before,
                                    c.unavailable.empty() ? "no reading after the workload" : c.unavailable);
      return out;
    }
    // before, the readings between windows, after: each step is checked on
    // its own, so a counter may wrap once per step.
    std::vector<std::uint64_t> values{*c.before};
    values.insert(values.end(), c.between.begin(), c.between.end());
    values.push_back(*c.after);
    for (std::uint64_t v : values)
      if (v > max) return too_wide(v);
    int wraps = 0;
    for (std::size_t i = 1; i < values.size(); ++i) {
      const std::uint64_t from = values[i - 1], to = values[i];
      std::uint64_t step = 0;
      if (to >= from) {
        step = to - from;
      } else {
        // Modular difference: how far the counter went if it wrapped once.
        std::uint64_t wrapped = (to - from) & max;
        std::uint64_t half = std::uint64_t{1} << (width - 1);
        if (wrapped >= half) {
          std::string when = values.size() == 2 ? "" : fmt::format(" between readings {} and {}", i, i + 1);
          out.unavailable = fmt::format(
              "went backwards{} ({} -> {}) and a {}-bit wrap-around would mean {} events: not used "
              "(was the counter reset during the run?)",
              when, from, to, width, wrapped);
          return out;
        }
        step = wrapped;
        ++wraps;
      }
      if (raw + step < raw) {
        out.unavailable = "the delta overflows 64 bits";
        return out;
      }
      raw += step;
      steps.push_back(step);
    }
    if (wraps == 1) out.note = fmt::format("wrapped around at {} bits", width);
    if (wraps > 1) out.note = fmt::format("wrapped around {} times at {} bits", wraps, width);
  }
  double value = static_cast<double>(raw);
  double run_factor = 1;
  if (c.enabled_before && c.enabled_after && c.running_before && c.running_after) {
    const Multiplexing m = multiplexing(*c.enabled_before, *c.enabled_after, *c.running_before, *c.running_after);
    if (m.backwards) {
      out.unavailable = "the perf event's enabled/running times went backwards: not used";
      return out;
    }
    if (m.never_ran) {
      out.unavailable = "never counted during the run: the kernel did not schedule the event on the PMU "
                        "(multiplexed out)";
      return out;
    }
    if (m.factor != 1) {
      run_factor = m.factor;
      value *= m.factor;
      out.note = fmt::format("scaled x{:.3g} for multiplexing (counted {:.0f} % of the time)", m.factor,
                             100.0 / m.factor);
    }
  }
  out.value = value * c.scale;
  if (steps.size() >= 2) {
    // Each window by its own multiplexing where the times were read between
    // the windows too.
    const bool own_times = c.enabled_before && c.running_before && c.enabled_after && c.running_after &&
                           c.enabled_between.size() == c.between.size() &&
                           c.running_between.size() == c.between.size();
    std::vector<std::uint64_t> enabled, running;
    if (own_times) {
      enabled = {*c.enabled_before}, running = {*c.running_before};
      enabled.insert(enabled.end(), c.enabled_between.begin(), c.enabled_between.end());
      running.insert(running.end(), c.running_between.begin(), c.running_between.end());
      enabled.push_back(*c.enabled_after), running.push_back(*c.running_after);
    }
    for (std::size_t k = 0; k < steps.size(); ++k) {
      double factor = run_factor;
      if (own_times) {
        const Multiplexing m = multiplexing(enabled[k], enabled[k + 1], running[k], running[k + 1]);
        if (m.backwards || m.never_ran) {
          out.windows.clear();
          break;
        }
        factor = m.factor;
      }
      out.windows.push_back(static_cast<double>(steps[k]) * factor * c.scale);
    }
  }
  return out;
}

namespace {

// Each window's change scaled to the whole run: change x iterations / the
// window's iterations; nothing unless the recording's windows match the
// readings between them.
std::vector<double> per_run_windows(const CountersRecording& rec, const std::vector<double>& windows) {
  const std::int64_t n = static_cast<std::int64_t>(windows.size());
  // A recording older than `windows` read after every iteration.
  const std::int64_t recorded = rec.windows > 0 ? rec.windows : n;
  if (n < 2 || recorded != n || rec.iterations < n) return {};
  // Recorded lengths are used only when they are the windows' and sum to the iterations.
  const std::vector<std::int64_t>& given = rec.window_iterations;
  std::int64_t given_total = 0;
  for (std::int64_t l : given) given_total += l > 0 ? l : -rec.iterations - 1;
  if (!given.empty() && (static_cast<std::int64_t>(given.size()) != n || given_total != rec.iterations)) return {};
  std::vector<double> out;
  out.reserve(windows.size());
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t length = !given.empty() ? given[static_cast<std::size_t>(k)]
                                               : window_end(rec.iterations, n, k) - (k == 0 ? 0 : window_end(rec.iterations, n, k - 1));
    out.push_back(windows[static_cast<std::size_t>(k)] * static_cast<double>(rec.iterations) /
                  static_cast<double>(length));
  }
  return out;
}

// A formula evaluated in each window, over the counters' windows; nothing
// unless every window has a value.
std::vector<double> formula_windows(const Formula& formula, const std::map<std::string, std::vector<double>>& windows) {
  std::size_t n = 0;
  for (const auto& [name, w] : windows) n = std::max(n, w.size());
  std::vector<double> out;
  for (std::size_t k = 0; k < n; ++k) {
    Formula::Value v = formula.evaluate([&](const std::string& name) -> Formula::Value {
      auto it = windows.find(name);
      if (it == windows.end() || it->second.size() != n) return {std::nullopt, "not read in windows"};
      return {it->second[k], ""};
    });
    if (!v.value || !std::isfinite(*v.value)) return {};
    out.push_back(*v.value);
  }
  return out;
}

std::string windows_source(std::size_t windows, std::int64_t iterations) {
  return fmt::format("{} windows of the {} iterations in the order they ran, each window's change x iterations / "
                     "its iterations",
                     windows, iterations);
}

// A run with a same-run reference: its windows alternate the sides in
// rounds, one window of each a round.
struct PairedWindows {
  std::vector<std::size_t> of[2];       // each side's windows in round order: [0] candidate, [1] reference
  std::vector<std::int64_t> length;     // each window's iterations
  std::int64_t iterations[2] = {0, 0};  // each side's
  // What a window is, in the metrics' sources: a window of level 2's own
  // rounds, or a block of level 4's rounds read by a session of its own.
  std::string noun = "window";
  std::string of_rounds = "windows of the paired rounds";
};

// The recording's windows by side, or why they do not fit it.
Result<PairedWindows> paired_windows(const CountersRecording& rec) {
  const std::int64_t n = static_cast<std::int64_t>(rec.window_sides.size());
  if (rec.windows != n || n % 2 != 0 || rec.iterations < n)
    return Error::input(fmt::format("the recording's {} window sides do not fit its {} windows of {} iterations", n,
                                    rec.windows, rec.iterations));
  PairedWindows p;
  for (std::int64_t k = 0; k < n; ++k) {
    const std::string& side = rec.window_sides[static_cast<std::size_t>(k)];
    if (side != "candidate" && side != "reference")
      return Error::input(fmt::format("the recording's window {} has the side \"{}\"", k + 1, side));
    if (k % 2 == 1 && side == rec.window_sides[static_cast<std::size_t>(k - 1)])
      return Error::input(fmt::format("round {} of the recording has two {} windows", k / 2 + 1, side));
    const bool reference = side == "reference";
    p.of[reference].push_back(static_cast<std::size_t>(k));
    p.length.push_back(window_end(rec.iterations, n, k) - (k == 0 ? 0 : window_end(rec.iterations, n, k - 1)));
    p.iterations[reference] += p.length.back();
  }
  return p;
}

// Level 4's paired blocks (each read by a session of its own) as the
// windows of the rounds, or why they do not pair: every round a block of
// each side, in the order they ran.
Result<PairedWindows> paired_blocks(const CountersRecording& rec) {
  PairedWindows p;
  p.noun = "block";
  p.of_rounds = "blocks of level 4's paired rounds, each read by its own session";
  const std::size_t n = rec.blocks.size();
  if (n % 2 != 0) return Error::input(fmt::format("the recording's {} counter blocks do not make whole rounds", n));
  for (std::size_t k = 0; k < n; ++k) {
    const CounterBlock& b = rec.blocks[k];
    if (b.side != "candidate" && b.side != "reference")
      return Error::input(fmt::format("the recording's counter block {} has the side \"{}\"", k + 1, b.side));
    if (b.round != static_cast<int>(k / 2) || b.iterations < 1)
      return Error::input(fmt::format("the recording's counter block {} is round {} of {} iterations, not round {}",
                                      k + 1, b.round + 1, b.iterations, k / 2 + 1));
    if (k % 2 == 1 && b.side == rec.blocks[k - 1].side)
      return Error::input(fmt::format("round {} of the recording has two {} blocks", k / 2 + 1, b.side));
    const bool reference = b.side == "reference";
    p.of[reference].push_back(k);
    p.length.push_back(b.iterations);
    p.iterations[reference] += b.iterations;
  }
  return p;
}

// Counter `index` of the blocks' readings: its change in each block, from
// that block's own before and after (and multiplexing), as the windows of a
// paired run; unavailable when a block has none.
CounterDelta block_deltas(const CountersRecording& rec, std::size_t index) {
  CounterDelta out;
  const std::string& name = rec.blocks.front().readings[index].name;
  double sum = 0;
  int noted = 0;
  for (std::size_t k = 0; k < rec.blocks.size(); ++k) {
    const CounterBlock& b = rec.blocks[k];
    if (index >= b.readings.size() || b.readings[index].name != name) {
      out.unavailable = fmt::format("not read in block {} (round {}, {})", k + 1, b.round + 1, b.side);
      return out;
    }
    CounterDelta d = counter_delta(b.readings[index]);
    if (!d.value) {
      out.unavailable = fmt::format("block {} (round {}, {}): {}", k + 1, b.round + 1, b.side, d.unavailable);
      return out;
    }
    if (!d.note.empty() && noted++ == 0) out.note = fmt::format("block {}: {}", k + 1, d.note);
    out.windows.push_back(*d.value);
    sum += *d.value;
  }
  if (noted > 1) out.note += fmt::format(" (and {} more blocks noted)", noted - 1);
  out.value = sum;
  return out;
}

// What the formulas are evaluated over: each counter's value (or why not)
// and its windows; with a reference, the reference's values too and each
// side's per-iteration value in every round.
struct CounterValues {
  std::map<std::string, Formula::Value> values;  // the candidate's (the run's, without a reference)
  std::map<std::string, Formula::Value> reference;
  std::map<std::string, std::vector<double>> windows;  // the candidate's, each scaled to its iterations
  std::map<std::string, std::vector<double>> rounds[2];  // per side: per iteration, in round order
};

// The rounds' ratios candidate / reference of `name` (per-iteration values
// in round order) as the sample set "vs_reference.<name>", and their
// geometric mean as the metric of that name.
void paired_ratio(const std::string& name, const std::vector<double>& candidate, const std::vector<double>& reference,
                  const std::string& source, Provenance measured, std::optional<Better> better, Analysis& out) {
  const std::string ratio_name = "vs_reference." + name;
  std::vector<double> ratios;
  for (std::size_t r = 0; r < candidate.size() && r < reference.size(); ++r)
    if (candidate[r] > 0 && reference[r] > 0 && std::isfinite(candidate[r] / reference[r]))
      ratios.push_back(candidate[r] / reference[r]);
  if (ratios.empty()) {
    out.metrics.push_back(
        catalogued_missing(Level::counters, ratio_name, "no round gave both sides a value above 0", "1", better));
    return;
  }
  double log_sum = 0;
  for (double r : ratios) log_sum += std::log(r);
  const std::string how = fmt::format("{}: geometric mean of {} rounds' candidate / reference per iteration", source,
                                      ratios.size());
  out.metrics.push_back(catalogued_metric(Level::counters, ratio_name, std::exp(log_sum / double(ratios.size())),
                                          measured, how, {}, "1", better));
  out.samples.push_back(catalogued_samples(Level::counters, ratio_name, measured, how, std::move(ratios), "1", better));
}

// One counter of a run with a reference: the candidate's windows summed
// under its name, the reference's as "reference.<name>", the candidate's
// windows as its sample set, and the rounds' ratios.
void analyse_paired_reading(const CountersRecording& rec, const PairedWindows& paired, const CounterReading& c,
                            const CounterDelta& d, Provenance measured, CounterValues& v, Analysis& out) {
  const std::string name = "counter." + c.name;
  if (d.windows.size() != paired.length.size()) {
    const std::string why = fmt::format("not read in each of the {} {}, so the "
                                        "candidate's count cannot be told from the reference's",
                                        paired.length.size(), paired.of_rounds);
    out.metrics.push_back(catalogued_missing(Level::counters, name, why, c.unit, Better::lower));
    v.values[c.name] = v.reference[c.name] = {std::nullopt, why};
    return;
  }
  double sum[2] = {0, 0};
  for (int side : {0, 1}) {
    for (std::size_t k : paired.of[side]) {
      sum[side] += d.windows[k];
      v.rounds[side][c.name].push_back(d.windows[k] / static_cast<double>(paired.length[k]));
    }
  }
  std::string how = d.note.empty() ? "" : ", " + d.note;
  if (c.scale != 1) how += fmt::format(", x {}", number(c.scale));
  const char* whose[2] = {"candidate", "reference"};
  for (int side : {0, 1}) {
    const std::string source = fmt::format("{}: sum of the {}'s {} {} ({}){}", c.source, whose[side],
                                           paired.of[side].size(), paired.of_rounds, rec.pairing, how);
    out.metrics.push_back(catalogued_metric(Level::counters, side ? "reference." + name : name, sum[side], measured,
                                            source, {}, c.unit, Better::lower));
  }
  v.values[c.name] = {sum[0], ""};
  v.reference[c.name] = {sum[1], ""};
  std::vector<double>& w = v.windows[c.name];
  for (double per_iteration : v.rounds[0][c.name])
    w.push_back(per_iteration * static_cast<double>(paired.iterations[0]));
  out.samples.push_back(catalogued_samples(
      Level::counters, name, measured,
      fmt::format("{0}: the candidate's {1} {2}s in the order they ran, each {2}'s change x the candidate's {3} "
                  "iterations / its iterations",
                  c.source, w.size(), paired.noun, paired.iterations[0]),
      w, c.unit, Better::lower));
  paired_ratio(name, v.rounds[0][c.name], v.rounds[1][c.name], c.source, measured, Better::lower, out);
}

// One counter: its delta over the counted iterations, and its windows.
void analyse_reading(const CountersRecording& rec, const PairedWindows* paired, const CounterReading& c,
                     Provenance measured, CounterValues& v, Analysis& out) {
  const std::string name = "counter." + c.name;
  CounterDelta d = counter_delta(c);
  if (!d.value) {
    out.metrics.push_back(catalogued_missing(Level::counters, name, d.unavailable, c.unit, Better::lower));
    v.values[c.name] = v.reference[c.name] = {std::nullopt, d.unavailable};
    return;
  }
  if (paired) return analyse_paired_reading(rec, *paired, c, d, measured, v, out);
  std::string source = c.delta             ? c.source + ": delta reported by the source"
                       : c.between.empty() ? c.source + ": after - before"
                                           : fmt::format("{}: sum of {} steps read between windows of the "
                                                         "iterations",
                                                         c.source, c.between.size() + 1);
  if (!d.note.empty()) source += ", " + d.note;
  if (c.scale != 1) source += fmt::format(", x {}", number(c.scale));
  out.metrics.push_back(
      catalogued_metric(Level::counters, name, *d.value, measured, source, {}, c.unit, Better::lower));
  v.values[c.name] = {d.value, ""};
  if (std::vector<double> w = per_run_windows(rec, d.windows); !w.empty()) {
    out.samples.push_back(catalogued_samples(Level::counters, name, measured,
                                             c.source + ": " + windows_source(w.size(), rec.iterations), w, c.unit,
                                             Better::lower));
    v.windows[c.name] = std::move(w);
  }
}

// One counter of level 4's paired blocks: its change in each block, paired
// by round as a paired run's windows are.
void analyse_block_reading(const CountersRecording& rec, const PairedWindows& paired, std::size_t index,
                           Provenance measured, CounterValues& v, Analysis& out) {
  const CounterReading& c = rec.blocks.front().readings[index];
  const CounterDelta d = block_deltas(rec, index);
  if (!d.value) {
    out.metrics.push_back(catalogued_missing(Level::counters, "counter." + c.name, d.unavailable, c.unit, Better::lower));
    v.values[c.name] = v.reference[c.name] = {std::nullopt, d.unavailable};
    return;
  }
  analyse_paired_reading(rec, paired, c, d, measured, v, out);
}

Formula::Value value_of(const std::map<std::string, Formula::Value>& values, const std::string& name,
                        const std::string& not_read) {
  auto it = values.find(name);
  if (it == values.end()) return {std::nullopt, not_read};
  return it->second;
}

// A group formula in a run with a reference: over the reference's windows
// as "reference.<name>", and the rounds' ratios of its value in each side's
// window of the round.
void analyse_paired_formula(const DerivedCounterMetric& dm, const std::string& formula, const PairedWindows& paired,
                            const CounterValues& v, const std::string& not_read, Provenance measured, Analysis& out) {
  const std::string name = "counter." + dm.name;
  Formula::Value r = dm.formula.evaluate([&](const std::string& n) { return value_of(v.reference, n, not_read); });
  out.metrics.push_back(r.value ? catalogued_metric(Level::counters, "reference." + name, *r.value, measured,
                                                    formula + " over the reference's " + paired.noun + "s", {}, dm.unit, dm.better)
                                : catalogued_missing(Level::counters, "reference." + name, r.unavailable, dm.unit,
                                                     dm.better));
  const std::vector<double> candidate = formula_windows(dm.formula, v.rounds[0]);
  const std::vector<double> reference = formula_windows(dm.formula, v.rounds[1]);
  if (candidate.empty() || reference.empty()) {
    out.metrics.push_back(catalogued_missing(Level::counters, "vs_reference." + name,
                                             "the formula has no value in every round of both sides", "1", dm.better));
    return;
  }
  paired_ratio(name, candidate, reference, formula, measured, dm.better, out);
}

}  // namespace

void analyse_counters(const Scenario& scenario, const CountersRecording* rec, Provenance measured,
                      Analysis& out) {
  if (!scenario.counters) {
    out.metrics.push_back(catalogued_missing(Level::counters, "counters", "the scenario has no [counters] section"));
    return;
  }
  CounterValues v;
  std::string not_read = "not read in this run";
  std::optional<PairedWindows> paired;
  const bool read_paired = rec && (!rec->window_sides.empty() || !rec->blocks.empty());
  if (read_paired) {
    Result<PairedWindows> p = rec->blocks.empty() ? paired_windows(*rec) : paired_blocks(*rec);
    if (p) paired = std::move(*p);
    else not_read = p.error().message;
  }
  const bool read = rec && (!rec->readings.empty() || !rec->blocks.empty());
  if (!read || (read_paired && !paired)) {
    std::string why = rec && !rec->unavailable.empty() ? rec->unavailable
                      : read                           ? not_read
                                                       : "no counter readings recorded";
    out.metrics.push_back(catalogued_missing(Level::counters, "counters", why));
    not_read = why;
  } else if (!rec->blocks.empty()) {
    for (std::size_t i = 0; i < rec->blocks.front().readings.size(); ++i)
      analyse_block_reading(*rec, *paired, i, measured, v, out);
  } else {
    for (const CounterReading& c : rec->readings) analyse_reading(*rec, paired ? &*paired : nullptr, c, measured, v, out);
  }
  const std::int64_t counted = !rec ? 0 : paired ? paired->iterations[0] : rec->iterations;
  for (const CounterGroup& g : scenario.counters->groups) {
    if (rec) {
      for (const RecordedCounterGroup& r : rec->groups) {
        if (r.name == g.name && !r.sha256.empty() && r.sha256 != g.sha256) {
          out.hints.push_back(fmt::format(
              "counter group {} changed since this run was recorded ({} had sha256 {}, {} has {}): its derived "
              "metrics use the current formulas",
              g.name, r.path, r.sha256.substr(0, 12), g.path, g.sha256.substr(0, 12)));
        }
      }
    }
    for (const DerivedCounterMetric& dm : g.metrics) {
      std::string name = "counter." + dm.name;
      Formula::Value value = dm.formula.evaluate([&](const std::string& n) { return value_of(v.values, n, not_read); });
      if (!value.value) {
        out.metrics.push_back(catalogued_missing(Level::counters, name, value.unavailable, dm.unit, dm.better));
        continue;
      }
      const std::string formula = fmt::format("formula {} = {} (group {})", dm.name, dm.formula.text(), g.name);
      const Metric m =
          catalogued_metric(Level::counters, name, *value.value, measured, formula, {}, dm.unit, dm.better);
      out.metrics.push_back(m);
      if (std::vector<double> w = formula_windows(dm.formula, v.windows); !w.empty()) {
        const std::string windows = paired ? fmt::format("the candidate's {} {}s", w.size(), paired->noun)
                                           : windows_source(w.size(), rec->iterations);
        out.samples.push_back(catalogued_samples(Level::counters, name, measured, formula + " in each of " + windows,
                                                 std::move(w), dm.unit, dm.better));
      }
      if (paired) analyse_paired_formula(dm, formula, *paired, v, not_read, measured, out);
      if (dm.name == "bytes" && counted > 0) {
        // Level 1 places one run of the workload: bytes per iteration.
        out.metrics.push_back(catalogued_metric(Level::counters, "counter.bytes_per_iteration",
                                                *m.value / static_cast<double>(counted), measured,
                                                fmt::format("counter.bytes / {} iterations", counted), {}, m.unit,
                                                m.better));
      }
    }
  }
}

std::optional<Metric> counter_bytes_per_iteration(const Scenario& scenario, const CountersRecording* recording,
                                                  Provenance measured) {
  Analysis scratch;
  analyse_counters(scenario, recording, measured, scratch);
  const Metric* m = scratch.find_metric("counter.bytes_per_iteration");
  if (!m) m = scratch.find_metric("counter.bytes");  // unavailable: carries the reason
  if (!m) return std::nullopt;
  return *m;
}

namespace {

std::string baseline_check(const BaselineCounterExpectation& e) {
  return "counters.expect.baseline." + e.key;
}

std::string percent(double fraction) { return fmt::format("{:.3g} %", fraction * 100); }

std::string expected_text(const BaselineCounterExpectation& e) {
  using Kind = BaselineCounterExpectation::Kind;
  switch (e.kind) {
    case Kind::drop_min: return fmt::format(">= {} drop against the baseline", percent(e.fraction));
    case Kind::rise_max: return fmt::format("<= {} rise against the baseline", percent(e.fraction));
    case Kind::follows: return fmt::format("drops when {} drops", e.lead);
  }
  return "";
}

// How a counter moved from the baseline to the current run.
struct Change {
  double before = 0, after = 0;
  double relative = 0;  // (after - before) / before
  std::string unavailable;
  std::string describe() const {
    std::string word = relative < 0 ? "dropped" : relative > 0 ? "rose" : "did not change";
    if (relative == 0) return fmt::format("{} ({} -> {})", word, number(before), number(after));
    return fmt::format("{} {} ({} -> {})", word, percent(std::fabs(relative)), number(before), number(after));
  }
};

Change change_of(const std::string& name, const Analysis& baseline, const Analysis& current) {
  Change c;
  const std::string metric = "counter." + name;
  const Metric* b = baseline.find_metric(metric);
  const Metric* a = current.find_metric(metric);
  if (!b || !b->value) {
    c.unavailable = fmt::format("baseline has no {}{}", name, b ? ": " + b->unavailable : "");
  } else if (!a || !a->value) {
    c.unavailable = fmt::format("this run has no {}{}", name, a ? ": " + a->unavailable : "");
  } else if (*b->value == 0) {
    c.unavailable = fmt::format("baseline {} is 0: a relative change is undefined", name);
  } else {
    c.before = *b->value;
    c.after = *a->value;
    c.relative = (c.after - c.before) / c.before;
  }
  return c;
}

// The verdict of `e`, its outcome still to be said.
Verdict baseline_verdict(const BaselineCounterExpectation& e) {
  Verdict v;
  v.level = Level::counters;
  v.check = baseline_check(e);
  v.expected = expected_text(e);
  return v;
}

}  // namespace

std::vector<Verdict> evaluate_counters_baseline(const CountersConfig& config, const Analysis& baseline,
                                                const Analysis& current) {
  using Kind = BaselineCounterExpectation::Kind;
  std::vector<Verdict> out;
  for (const BaselineCounterExpectation& e : config.baseline_expectations) {
    Verdict v = baseline_verdict(e);
    Change c = change_of(e.counter, baseline, current);
    if (!c.unavailable.empty()) {
      v.status = VerdictStatus::unavailable;
      v.measured = "unavailable: " + c.unavailable;
      out.push_back(v);
      continue;
    }
    switch (e.kind) {
      case Kind::drop_min: {
        double drop = -c.relative;
        v.measured = fmt::format("{} {}", e.counter, c.describe());
        v.status = drop >= e.fraction ? VerdictStatus::pass : VerdictStatus::fail;
        if (v.status == VerdictStatus::fail) {
          v.detail = fmt::format("{} {}; expected a drop of at least {} ({})", e.counter, c.describe(),
                                 percent(e.fraction), e.where);
        }
        break;
      }
      case Kind::rise_max: {
        v.measured = fmt::format("{} {}", e.counter, c.describe());
        v.status = c.relative <= e.fraction ? VerdictStatus::pass : VerdictStatus::fail;
        if (v.status == VerdictStatus::fail) {
          v.detail = fmt::format("{} {}; expected a rise of at most {} ({})", e.counter, c.describe(),
                                 percent(e.fraction), e.where);
        }
        break;
      }
      case Kind::follows: {
        Change lead = change_of(e.lead, baseline, current);
        if (!lead.unavailable.empty()) {
          v.status = VerdictStatus::unavailable;
          v.measured = "unavailable: " + lead.unavailable;
          break;
        }
        v.measured = fmt::format("{} {}; {} {}", e.counter, c.describe(), e.lead, lead.describe());
        if (lead.relative >= 0) {
          v.status = VerdictStatus::pass;
          v.detail = fmt::format("{} did not drop, so {} is not required to", e.lead, e.counter);
        } else if (c.relative < 0) {
          v.status = VerdictStatus::pass;
        } else {
          v.status = VerdictStatus::fail;
          v.detail = fmt::format("{} {} while {} {}: expected {} to drop with {} ({})", e.counter, c.describe(),
                                 e.lead, lead.describe(), e.counter, e.lead, e.where);
        }
        break;
      }
    }
    out.push_back(v);
  }
  return out;
}

std::vector<Verdict> counters_baseline_placeholders(const CountersConfig& config) {
  std::vector<Verdict> out;
  for (const BaselineCounterExpectation& e : config.baseline_expectations) {
    Verdict v = baseline_verdict(e);
    v.status = VerdictStatus::unavailable;
    v.measured = "unavailable: needs a baseline";
    v.detail = "compare this run against a baseline run (harness compare) to evaluate it";
    out.push_back(v);
  }
  return out;
}

}  // namespace harness
