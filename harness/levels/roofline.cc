#include "harness/levels/roofline.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/stats.h"
#include "harness/base/units.h"
#include "harness/levels/layer_profile.h"
#include "harness/model/metric_catalogue.h"
#include "probes/kernels.h"

namespace harness {

Provenance weakest(Provenance a, Provenance b) {
  auto rank = [](Provenance p) {
    switch (p) {
      case Provenance::measured: return 0;
      case Provenance::replayed: return 1;
      case Provenance::model: return 2;
      case Provenance::declared: return 3;
    }
    return 3;
  };
  return rank(a) >= rank(b) ? a : b;
}

RooflinePlacement place_on_roofline(double flops, double bytes, double peak, double bandwidth) {
  RooflinePlacement p;
  p.intensity = flops / bytes;
  p.ridge = peak / bandwidth;
  p.attainable = std::min(peak, bandwidth * p.intensity);
  p.memory_bound = p.intensity < p.ridge;
  p.ridge_distance_decades = std::log10(p.intensity / p.ridge);
  return p;
}

namespace {

// Units and directions come from the catalogue (harness/model/metric_catalogue.cc);
// `unit` only where the entry allows more than one.
Metric derived(const std::string& name, double value, Provenance p, const std::string& source,
               const std::string& text = "", std::string_view unit = {}) {
  return catalogued_metric(Level::roofline, name, value, p, source, text, unit);
}


// The "bandwidth" and "compute" regression tables: vendor figures first (a
// rig's own tool), then this host's microbenchmarks. Each is also a metric.
std::map<std::string, Metric> benchmark_tables(const RooflineConfig& config, const RooflineRecording* rec,
                                               Provenance measured, Analysis& out) {
  std::map<std::string, Metric> tables;
  for (const VendorTool& tool : config.vendor) {
    const VendorOutput* output = nullptr;
    if (rec)
      for (const VendorOutput& v : rec->vendor)
        if (v.tool == tool.name) output = &v;
    for (const VendorFigure& f : tool.figures) {
      const std::string unit(si_unit(f.dimension));
      Metric m;
      if (!output) {
        m = catalogued_missing(Level::roofline, f.metric, fmt::format("vendor tool {} was not run", tool.name), unit);
      } else if (!output->unavailable.empty()) {
        m = catalogued_missing(Level::roofline, f.metric,
                               fmt::format("vendor tool {}: {}", tool.name, output->unavailable), unit);
      } else if (Result<double> v = extract_vendor_figure(output->out, f.pattern, f.unit, f.dimension); !v) {
        m = catalogued_missing(Level::roofline, f.metric,
                               fmt::format("vendor tool {}: {}", tool.name, v.error().message), unit);
      } else {
        m = derived(f.metric, *v, measured, fmt::format("vendor tool {}: /{}/", tool.name, f.pattern), {}, unit);
      }
      tables[f.metric] = m;
      out.metrics.push_back(m);
    }
  }
  if (!rec) return tables;
  for (const CeilingSamples& s : rec->ceilings) {
    if (tables.count(s.name)) continue;  // the rig's own tool wins
    Metric m;
    if (s.values.empty()) {
      m = catalogued_missing(Level::roofline, s.name, s.unavailable.empty() ? "no samples" : s.unavailable, s.unit);
    } else {
      out.samples.push_back(catalogued_samples(Level::roofline, s.name, measured, s.source, s.values, s.unit));
      m = derived(s.name, median(s.values), measured, fmt::format("{} (median of {})", s.source, s.values.size()), {},
                  s.unit);
    }
    tables[s.name] = m;
    out.metrics.push_back(m);
  }
  return tables;
}

// The best available metric among those named `prefix<...>`, e.g. the
// thread count that reads fastest.
const Metric* best_with_prefix(const std::map<std::string, Metric>& tables, const std::string& prefix,
                               std::string& reason) {
  const Metric* best = nullptr;
  for (const auto& [name, m] : tables) {
    if (name.rfind(prefix, 0) != 0) continue;
    if (!m.value) {
      if (reason.empty()) reason = fmt::format("{}: {}", name, m.unavailable);
      continue;
    }
    if (!best || *m.value > *best->value) best = &m;
  }
  return best;
}

// A ceiling's value: declared in the scenario, or measured. A measured memory
// ceiling X is the figure "bandwidth.X" (a vendor tool's); for "dram" on a
// host, the fastest sequential read. Likewise compute X is "compute.X", and
// "fp32" on a host the fastest FMA run.
// `copied` is set to the name of the figure a measured ceiling copies.
Metric ceiling_metric(const Ceiling& c, bool memory, const std::map<std::string, Metric>& tables,
                      std::string& copied) {
  const std::string name = fmt::format("ceiling.{}.{}", memory ? "memory" : "compute", c.name);
  const std::string unit = memory ? "B/s" : "op/s";
  if (!c.measure) {
    return derived(name, c.value, Provenance::declared, fmt::format("scenario {}", c.where), {}, unit);
  }
  const std::string figure = fmt::format("{}.{}", memory ? "bandwidth" : "compute", c.name);
  const Metric* m = nullptr;
  std::string reason;
  if (auto it = tables.find(figure); it != tables.end()) {
    m = &it->second;
    if (!m->value) reason = fmt::format("{}: {}", figure, m->unavailable);
  } else if (memory && c.name == "dram") {
    m = best_with_prefix(tables, "bandwidth.seq_read.", reason);
  } else if (!memory && c.name == "fp32") {
    m = best_with_prefix(tables, "compute.fma_fp32.", reason);
  }
  if (!m || !m->value) {
    if (reason.empty()) {
      reason = fmt::format("nothing measures {} ceiling '{}': add a vendor figure \"{}\" or declare a value",
                           memory ? "memory" : "compute", c.name, figure);
      if ((memory && c.name == "dram") || (!memory && c.name == "fp32")) {
        reason = fmt::format("nothing measured {} ceiling '{}' (host_benchmarks off and no vendor figure \"{}\")",
                             memory ? "memory" : "compute", c.name, figure);
      }
    }
    return catalogued_missing(Level::roofline, name, reason, unit);
  }
  copied = m->name;
  return derived(name, *m->value, m->provenance, fmt::format("{}: {}", m->name, m->source), {}, unit);
}

// A measured ceiling's repetitions, one per round of level 1 (in the order
// they ran), keyed by the ceiling's metric name ("ceiling.memory.dram");
// none for a declared ceiling or a vendor tool's figure.
using CeilingRounds = std::map<std::string, std::vector<double>>;

// The roofline figures of one kernel in each round of level 1, from its time
// and the ceilings' values in that round (a ceiling without rounds is the
// same in all), as sample sets of the metrics' names, so that compare judges
// them as it judges the time: a round disturbed by the host slows the kernel
// and the ceilings measured beside it, a change of the kernel shows in every
// round. Nothing unless the time has two or more rounds and every ceiling
// with rounds has as many.
void kernel_rounds(const std::string& pre, double flops, double bytes, const std::vector<double>& seconds,
                   Provenance achieved_p, const Metric* P, const Metric* B, Provenance place_p,
                   const CeilingRounds& rounds, Analysis& out) {
  const std::size_t n = seconds.size();
  if (n < 2) return;
  for (double t : seconds)
    if (!(t > 0)) return;
  std::vector<double> achieved;
  for (double t : seconds) {
    achieved.push_back(flops / t);
    if (!std::isfinite(achieved.back())) return;
  }
  out.samples.push_back(catalogued_samples(Level::roofline, pre + "achieved", achieved_p,
                                           "flops / the time of each round", achieved));
  if (!P || !B) return;
  auto in_round = [&](const Metric& ceiling) -> const std::vector<double>* {
    auto it = rounds.find(ceiling.name);
    return it == rounds.end() ? nullptr : &it->second;
  };
  const std::vector<double>* p_rounds = in_round(*P);
  const std::vector<double>* b_rounds = in_round(*B);
  if (!p_rounds && !b_rounds) return;  // the roof is the same in every round
  if ((p_rounds && p_rounds->size() != n) || (b_rounds && b_rounds->size() != n)) return;
  std::vector<double> attainable, utilisation;
  for (std::size_t r = 0; r < n; ++r) {
    const double peak = p_rounds ? (*p_rounds)[r] : *P->value;
    const double bandwidth = b_rounds ? (*b_rounds)[r] : *B->value;
    const double roof = place_on_roofline(flops, bytes, peak, bandwidth).attainable;
    if (!(roof > 0) || !std::isfinite(roof)) return;  // a roof of 0, or no flops, places nothing
    attainable.push_back(roof);
    utilisation.push_back(achieved[r] / roof);
  }
  const std::string which = fmt::format("min({}, {} x intensity)", P->name, B->name);
  out.samples.push_back(catalogued_samples(Level::roofline, pre + "attainable", place_p,
                                           which + " with the ceilings of each round", attainable));
  out.samples.push_back(catalogued_samples(Level::roofline, pre + "utilisation", weakest(achieved_p, place_p),
                                           "achieved / attainable in each round", utilisation));
}

struct Bytes {
  std::optional<double> value;
  Provenance provenance = Provenance::declared;
  std::string source;
  std::string missing;
};

Bytes kernel_bytes(const RooflineKernel& k, const Analysis& so_far) {
  Bytes b;
  switch (k.bytes_source.kind) {
    case BytesSource::Kind::declared:
      b.value = k.bytes;
      b.source = "declared";
      break;
    case BytesSource::Kind::model:
      if (k.builtin) {
        b.value = kernel_cost(*k.builtin).model_bytes;
        b.provenance = Provenance::model;
        b.source = "model: compulsory traffic";
      } else {
        b.missing = "no bytes: a declared kernel needs 'bytes' or a bytes_source";
      }
      break;
    case BytesSource::Kind::counters:
    case BytesSource::Kind::ddr: {
      const Metric* m = so_far.find_metric(k.bytes_source.metric);
      const char* level = k.bytes_source.kind == BytesSource::Kind::ddr ? "level 3" : "level 2";
      if (!m) {
        b.missing = fmt::format("bytes_source \"{}\": {} produced no metric {}", k.bytes_source.written, level,
                                k.bytes_source.metric);
      } else if (!m->value) {
        b.missing = fmt::format("bytes_source \"{}\": {}", k.bytes_source.written, m->unavailable);
      } else {
        b.value = *m->value * k.bytes_source.per_count;
        b.provenance = m->provenance;
        b.source = k.bytes_source.per_count == 1
                       ? fmt::format("{}: {}", k.bytes_source.written, m->name)
                       : fmt::format("{}: {} x {:g} B", k.bytes_source.written, m->name, k.bytes_source.per_count);
      }
      break;
    }
  }
  return b;
}

// A kernel timed beside its same-run reference: the reference's time and
// achieved op/s ("reference.<kernel>.*"), and each round's ratio of achieved
// op/s, candidate / reference (each side with its own flops), as the sample
// set "vs_reference.<kernel>.achieved" with their geometric mean: judged as
// paired rounds (harness compare), which cancels what the device did to both
// sides during the round.
void analyse_paired_kernel(const RooflineKernel& k, double flops, Provenance flops_p, const RooflineRecording* rec,
                           Provenance measured, Analysis& out) {
  const std::string time = "reference." + k.name + ".time", achieved = "reference." + k.name + ".achieved",
                    ratio = "vs_reference." + k.name + ".achieved";
  const KernelTiming* timing = rec ? rec->find_kernel(k.name) : nullptr;
  auto missing = [&](const std::string& why) {
    for (const std::string& name : {time, achieved, ratio})
      out.metrics.push_back(catalogued_missing(Level::roofline, name, why));
  };
  if (!timing) return missing("not run");
  if (timing->reference_seconds.empty()) {
    return missing(!timing->unavailable.empty() ? timing->unavailable
                                                : "the device did not time the reference (an agent older than "
                                                  "kernel references: harness rig install SCENARIO)");
  }
  const std::vector<double>& reference = timing->reference_seconds;
  const double reference_flops = kernel_cost(*k.reference).flops;
  const double t = median(reference);
  const std::string blocks =
      timing->runs_per_round > 1 ? fmt::format(", each the median of {} runs", timing->runs_per_round) : "";
  out.metrics.push_back(derived(time, t, measured, fmt::format("median of {} rounds{}", reference.size(), blocks)));
  const Provenance achieved_p = weakest(measured, Provenance::model);
  if (t > 0) {
    out.metrics.push_back(derived(achieved, reference_flops / t, achieved_p, "the reference's flops / time"));
  } else {
    out.metrics.push_back(catalogued_missing(Level::roofline, achieved, "time is 0"));
  }
  std::vector<double> ratios;
  for (std::size_t r = 0; r < timing->seconds.size() && r < reference.size(); ++r) {
    const double c = timing->seconds[r], b = reference[r];
    if (!(c > 0) || !(b > 0)) continue;
    const double x = (flops / c) / (reference_flops / b);
    if (std::isfinite(x) && x > 0) ratios.push_back(x);
  }
  if (ratios.empty()) {
    out.metrics.push_back(
        catalogued_missing(Level::roofline, ratio, "no round gave both the kernel and its reference a time above 0"));
    return;
  }
  double log_sum = 0;
  for (double x : ratios) log_sum += std::log(x);
  const std::string how = fmt::format("geometric mean of {} rounds' achieved op/s, candidate / reference ({}{})",
                                      ratios.size(), rec->pairing.empty() ? "order not recorded" : rec->pairing,
                                      blocks);
  // Of the same work on both sides the ratio is one of times alone.
  const Provenance ratio_p = flops == reference_flops ? measured : weakest(achieved_p, flops_p);
  out.metrics.push_back(derived(ratio, std::exp(log_sum / static_cast<double>(ratios.size())), ratio_p, how));
  out.samples.push_back(catalogued_samples(Level::roofline, ratio, ratio_p, how, std::move(ratios)));
}

void analyse_kernel(const RooflineKernel& k, const RooflineRecording* rec, Provenance measured,
                    const std::map<std::string, Metric>& compute, const std::map<std::string, Metric>& memory,
                    const CeilingRounds& rounds, Analysis& out) {
  const std::string pre = k.name + ".";
  double flops = 0;
  Provenance flops_p = Provenance::declared;
  if (k.flops) {
    flops = *k.flops;
  } else {
    flops = kernel_cost(*k.builtin).flops;
    flops_p = Provenance::model;
  }
  out.metrics.push_back(
      derived(pre + "flops", flops, flops_p, flops_p == Provenance::model ? "model: kernel formula" : "declared"));
  Bytes bytes = kernel_bytes(k, out);
  if (k.reference) analyse_paired_kernel(k, flops, flops_p, rec, measured, out);

  std::optional<double> seconds;
  Provenance time_p = measured;
  const KernelTiming* timing = rec ? rec->find_kernel(k.name) : nullptr;
  if (k.time) {
    seconds = *k.time;
    time_p = Provenance::declared;
    out.metrics.push_back(derived(pre + "time", *seconds, time_p, "declared"));
  } else if (timing && !timing->seconds.empty()) {
    seconds = median(timing->seconds);
    out.samples.push_back(catalogued_samples(Level::roofline, pre + "time", measured, "kernel run", timing->seconds));
    out.metrics.push_back(
        derived(pre + "time", *seconds, measured, fmt::format("median of {} runs", timing->seconds.size())));
  } else {
    std::string why = !k.builtin ? "no time: declare 'time' for a kernel the harness does not run"
                      : timing   ? timing->unavailable
                                 : "not run";
    out.metrics.push_back(catalogued_missing(Level::roofline, pre + "time", why));
  }
  if (seconds && *seconds > 0) {
    out.metrics.push_back(derived(pre + "achieved", flops / *seconds, weakest(time_p, flops_p), "flops / time"));
  } else {
    out.metrics.push_back(catalogued_missing(Level::roofline, pre + "achieved", seconds ? "time is 0" : "no time"));
  }

  auto p_it = compute.find(k.precision);
  auto b_it = memory.find(k.memory);
  std::string missing;
  if (!bytes.value) missing = bytes.missing;
  else if (*bytes.value <= 0) missing = fmt::format("{} gives {} bytes", bytes.source, *bytes.value);
  else if (p_it == compute.end()) missing = fmt::format("the rig declares no compute ceiling '{}'", k.precision);
  else if (!p_it->second.value) missing = fmt::format("compute ceiling {}: {}", k.precision, p_it->second.unavailable);
  else if (b_it == memory.end()) missing = fmt::format("the rig declares no memory ceiling '{}'", k.memory);
  else if (!b_it->second.value) missing = fmt::format("memory ceiling {}: {}", k.memory, b_it->second.unavailable);

  if (bytes.value) {
    out.metrics.push_back(derived(pre + "bytes", *bytes.value, bytes.provenance, bytes.source));
    if (*bytes.value > 0) {
      out.metrics.push_back(derived(pre + "intensity", flops / *bytes.value, weakest(flops_p, bytes.provenance),
                                    fmt::format("flops / bytes ({})", bytes.source)));
    }
  } else {
    out.metrics.push_back(catalogued_missing(Level::roofline, pre + "bytes", bytes.missing));
    out.metrics.push_back(catalogued_missing(Level::roofline, pre + "intensity", bytes.missing));
  }
  const std::vector<double> no_rounds;
  const std::vector<double>& times = timing && !k.time ? timing->seconds : no_rounds;
  if (!missing.empty()) {
    for (const char* name : {"attainable", "utilisation", "ridge_distance", "bound", "binding_ceiling"}) {
      out.metrics.push_back(catalogued_missing(Level::roofline, pre + name, missing));
    }
    kernel_rounds(pre, flops, 0, times, weakest(time_p, flops_p), nullptr, nullptr, flops_p, rounds, out);
    return;
  }
  const Metric& P = p_it->second;
  const Metric& B = b_it->second;
  const Provenance ai_p = weakest(flops_p, bytes.provenance);
  const Provenance place_p = weakest(ai_p, weakest(P.provenance, B.provenance));
  kernel_rounds(pre, flops, *bytes.value, times, weakest(time_p, flops_p), &P, &B, place_p, rounds, out);
  RooflinePlacement place = place_on_roofline(flops, *bytes.value, *P.value, *B.value);
  const Metric& binding = place.memory_bound ? B : P;
  out.metrics.push_back(
      derived(pre + "attainable", place.attainable, place_p, fmt::format("min({}, {} x intensity)", P.name, B.name)));
  out.metrics.push_back(derived(pre + "ridge_distance", place.ridge_distance_decades, place_p,
                                fmt::format("log10(intensity / ridge {:.4g} op/B)", place.ridge)));
  out.metrics.push_back(derived(pre + "bound", place.memory_bound ? 0 : 1, place_p,
                                fmt::format("binding ceiling: {}", binding.name),
                                place.memory_bound ? "memory" : "compute"));
  out.metrics.push_back(derived(pre + "binding_ceiling", *binding.value, binding.provenance,
                                "the ceiling that caps attainable", binding.name.substr(std::string("ceiling.").size()),
                                binding.unit));
  if (seconds && *seconds > 0) {
    const double utilisation = (flops / *seconds) / place.attainable;
    out.metrics.push_back(derived(pre + "utilisation", utilisation, weakest(time_p, place_p), "achieved / attainable"));
    // Above the roof is impossible: some input is wrong. 10 % leaves room for
    // run-to-run noise between the ceiling's and the kernel's measurements.
    if (utilisation > 1.1) {
      out.hints.push_back(fmt::format(
          "{}: achieved {} is {:.3g}x the attainable {}: the flops, bytes, time or ceilings are inconsistent "
          "(implied traffic {} against {} {})",
          k.name, format_quantity(flops / *seconds, "op/s"), utilisation, format_quantity(place.attainable, "op/s"),
          format_quantity(*bytes.value / *seconds, "B/s"), B.name, format_quantity(*B.value, "B/s")));
    }
  } else {
    out.metrics.push_back(catalogued_missing(Level::roofline, pre + "utilisation", "no time"));
  }
}

void analyse_profile(const RooflineConfig& config, const RooflineRecording* rec, Provenance measured,
                     const std::map<std::string, Metric>& compute, const std::map<std::string, Metric>& memory,
                     Analysis& out) {
  const LayerProfileConfig& pc = *config.profile;
  if (!rec || !rec->profile) {
    out.metrics.push_back(catalogued_missing(Level::roofline, "profile", "the profile was not read in this run"));
    return;
  }
  // The recording keeps the text; errors still name the file as written.
  const ProfileText* work = rec->profile_work ? &*rec->profile_work : nullptr;
  Result<LayerProfile> profile = read_configured_profile(pc, rec->profile->text, rec->profile->path,
                                                         work ? &work->text : nullptr, work ? &work->path : nullptr);
  if (!profile) {
    out.metrics.push_back(catalogued_missing(Level::roofline, "profile", profile.error().message));
    return;
  }
  ProfileCeilings c;
  auto p_it = compute.find(pc.precision);
  auto b_it = memory.find(pc.memory);
  if (p_it == compute.end()) c.missing = fmt::format("the rig declares no compute ceiling '{}'", pc.precision);
  else if (!p_it->second.value) c.missing = fmt::format("compute ceiling {}: {}", pc.precision, p_it->second.unavailable);
  else if (b_it == memory.end()) c.missing = fmt::format("the rig declares no memory ceiling '{}'", pc.memory);
  else if (!b_it->second.value) c.missing = fmt::format("memory ceiling {}: {}", pc.memory, b_it->second.unavailable);
  if (c.missing.empty()) {
    c.peak = p_it->second.value;
    c.bandwidth = b_it->second.value;
    c.peak_name = p_it->second.name;
    c.bandwidth_name = b_it->second.name;
    c.provenance = weakest(p_it->second.provenance, b_it->second.provenance);
  }
  analyse_layer_profile(*profile, pc, c, measured, out);
}

std::string show_number(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

void analyse_roofline(const Scenario& scenario, const RooflineRecording* rec, Provenance measured,
                      Analysis& out) {
  if (!scenario.roofline) {
    out.metrics.push_back(catalogued_missing(Level::roofline, "roofline", "the scenario has no [roofline] section"));
    return;
  }
  const RooflineConfig& config = *scenario.roofline;
  std::map<std::string, Metric> tables = benchmark_tables(config, rec, measured, out);

  std::map<std::string, Metric> compute, memory;
  CeilingRounds rounds;
  auto add_ceiling = [&](const Ceiling& c, bool is_memory, std::map<std::string, Metric>& into) {
    std::string figure;
    const Metric& m = into[c.name] = ceiling_metric(c, is_memory, tables, figure);
    out.metrics.push_back(m);
    // The microbenchmark's repetitions behind the figure (a vendor tool's
    // figure has none).
    const SampleSet* figure_rounds = figure.empty() ? nullptr : out.find_samples(figure);
    if (!figure_rounds) return;
    rounds[m.name] = figure_rounds->values;
    out.samples.push_back(catalogued_samples(Level::roofline, m.name, m.provenance,
                                             fmt::format("{}: each repetition, in rounds", figure),
                                             figure_rounds->values, m.unit));
  };
  for (const Ceiling& c : scenario.rig.compute) add_ceiling(c, false, compute);
  for (const Ceiling& c : scenario.rig.memory) add_ceiling(c, true, memory);
  for (auto& [pname, p] : compute) {
    for (auto& [bname, b] : memory) {
      std::string name = fmt::format("ridge.{}.{}", pname, bname);
      if (p.value && b.value && *b.value > 0) {
        out.metrics.push_back(derived(name, *p.value / *b.value, weakest(p.provenance, b.provenance),
                                      fmt::format("{} / {}", p.name, b.name)));
      } else {
        out.metrics.push_back(
            catalogued_missing(Level::roofline, name, fmt::format("needs {} and {}", p.name, b.name)));
      }
    }
  }

  for (const RooflineKernel& k : config.kernels) analyse_kernel(k, rec, measured, compute, memory, rounds, out);
  if (config.profile) analyse_profile(config, rec, measured, compute, memory, out);

  for (const KernelBaselineExpectation& e : config.baseline_expectations) {
    Verdict v;
    v.level = Level::roofline;
    v.check = fmt::format("{}.expect.{}", e.kernel, e.key);
    v.expected = e.strictly_greater ? "> baseline" : fmt::format(">= {}x baseline", show_number(e.min_ratio));
    v.measured = std::string("unavailable: ") + kNeedsBaseline;
    v.status = VerdictStatus::unavailable;
    out.verdicts.push_back(v);
  }
}

std::vector<Verdict> evaluate_roofline_baseline(const RooflineConfig& config, const Analysis& baseline,
                                                const Analysis& current) {
  std::vector<Verdict> verdicts;
  for (const KernelBaselineExpectation& e : config.baseline_expectations) {
    Verdict v;
    v.level = Level::roofline;
    v.check = fmt::format("{}.expect.{}", e.kernel, e.key);
    v.expected = e.strictly_greater ? "> baseline" : fmt::format(">= {}x baseline", show_number(e.min_ratio));
    const Metric* before = baseline.find_metric(e.metric);
    const Metric* after = current.find_metric(e.metric);
    if (!before || !before->value || !after || !after->value) {
      v.status = VerdictStatus::unavailable;
      const Metric* absent = (!before || !before->value) ? before : after;
      const char* which = (!before || !before->value) ? "baseline" : "current run";
      v.measured = absent ? fmt::format("unavailable: {} {}: {}", which, e.metric, absent->unavailable)
                          : fmt::format("unavailable: the {} has no metric {}", which, e.metric);
      verdicts.push_back(v);
      continue;
    }
    const double b = *before->value, a = *after->value;
    const double ratio = b > 0 ? a / b : 0;
    v.measured = b > 0 ? fmt::format("{} -> {} ({}x)", show_number(b), show_number(a), show_number(ratio))
                       : fmt::format("{} -> {}", show_number(b), show_number(a));
    bool pass = e.strictly_greater ? a > b : (b > 0 && ratio >= e.min_ratio);
    v.status = pass ? VerdictStatus::pass : VerdictStatus::fail;
    if (!pass) {
      v.detail = fmt::format("{} went from {} to {}, expected {} ({})", e.metric, show_number(b), show_number(a),
                             v.expected, e.where);
    }
    verdicts.push_back(v);
  }
  return verdicts;
}

}  // namespace harness
