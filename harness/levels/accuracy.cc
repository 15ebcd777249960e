#include "harness/levels/accuracy.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/accuracy/compare.h"
#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/model/metric_catalogue.h"

namespace harness {

namespace fs = std::filesystem;

void to_json(nlohmann::json& j, const AccuracyRecording& r) {
  nlohmann::json dumps = nlohmann::json::array();
  for (const AccuracyDumpRecording& d : r.dumps) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : d.files) files.push_back({{"name", f.name}, {"sha256", f.sha256}, {"size", f.size}});
    dumps.push_back({{"role", d.role}, {"path", d.path}, {"source", d.source}, {"files", files}});
  }
  j = {{"dumps", dumps}, {"map", r.map}, {"unavailable", r.unavailable}};
}

void from_json(const nlohmann::json& j, AccuracyRecording& r) {
  r.map = j.value("map", "");
  r.unavailable = j.value("unavailable", "");
  if (!j.contains("dumps")) return;
  for (const nlohmann::json& d : j["dumps"]) {
    AccuracyDumpRecording x;
    x.role = d.value("role", "");
    x.path = d.value("path", "");
    x.source = d.value("source", "");
    if (d.contains("files"))
      for (const nlohmann::json& f : d["files"])
        x.files.push_back({f.value("name", ""), f.value("sha256", ""), f.value("size", std::uint64_t{0})});
    r.dumps.push_back(std::move(x));
  }
}

std::string accuracy_metric_name(const std::string& layer, std::string_view figure, bool isolated) {
  return fmt::format("accuracy.{}{}.{}", isolated ? "isolated." : "", layer, figure);
}

namespace {

using accuracy::Figure;
using accuracy::LayerAccuracy;

struct FigureRow {
  std::string_view name;
  Figure accuracy::LayerMetrics::*member;
};
// The per-layer figures; their units and directions are the catalogue's
// accuracy.<layer>.<figure> entries.
const FigureRow kFigures[] = {
    {"cosine", &accuracy::LayerMetrics::cosine},
    {"psnr_db", &accuracy::LayerMetrics::psnr_db},
    {"sqnr_db", &accuracy::LayerMetrics::sqnr_db},
    {"max_abs_error", &accuracy::LayerMetrics::max_abs_error},
    {"mean_abs_error", &accuracy::LayerMetrics::mean_abs_error},
    {"relative_l2", &accuracy::LayerMetrics::relative_l2},
};

// A file the recording names, inside the recording's folder (the rule for
// files named by data: harness/base/files.h); a name leading out of it is an
// error, never a file read elsewhere.
Result<std::string> resolve(const std::string& base_dir, const std::string& name) {
  const std::string root = base_dir.empty() ? "." : base_dir;
  return path_inside(root, name, root, "the recording's folder");
}

// The recorded files must be the same bytes the run recorded.
std::string changed_file(const AccuracyDumpRecording& d, const std::string& base_dir) {
  for (const auto& f : d.files) {
    Result<std::string> path = resolve(base_dir, f.name);
    if (!path) return path.error().message;
    Result<std::string> digest = sha256_regular_file(*path);
    if (!digest) return "dump unreadable: " + digest.error().message;
    if (!f.sha256.empty() && *digest != f.sha256)
      return fmt::format("dump {} changed since it was recorded (sha256 {}, recorded {})", f.name, *digest, f.sha256);
  }
  return {};
}

std::string show_figure(const Figure& f, const char* spec) {
  if (!f.value) return "unavailable";
  if (std::isinf(*f.value)) return *f.value > 0 ? "+inf" : "-inf";
  return fmt::format(fmt::runtime(spec), *f.value);
}

struct Thresholds {
  std::optional<double> cosine_min, psnr_min_db;
  std::string where_cosine, where_psnr;
};

// Where a bound comes from, named by the scenario's keys (not its path, which
// differs between a live run and its replay).
Thresholds thresholds_for(const AccuracyConfig& c, const std::string& layer) {
  Thresholds t{c.cosine_min, c.psnr_min_db, "scenario [accuracy] cosine_min", "scenario [accuracy] psnr_min_db"};
  for (const AccuracyLayerThreshold& l : c.layers) {
    if (!layer_pattern_matches(l.pattern, layer)) continue;
    const std::string from = fmt::format("scenario [[accuracy.layer]] pattern \"{}\"", l.pattern);
    if (l.cosine_min) t.cosine_min = l.cosine_min, t.where_cosine = from;
    if (l.psnr_min_db) t.psnr_min_db = l.psnr_min_db, t.where_psnr = from;
    break;
  }
  return t;
}

// A dump's name inside the recording: the same in a live run and a replay.
std::string recorded_name(const std::string& origin, const std::string& base_dir) {
  const std::string prefix = base_dir.empty() ? "" : (fs::path(base_dir) / "").string();
  return !prefix.empty() && origin.rfind(prefix, 0) == 0 ? origin.substr(prefix.size()) : origin;
}

void push_layer_metrics(const LayerAccuracy& l, bool isolated, Provenance measured, const std::string& base_dir,
                        Analysis& out) {
  const std::string source =
      "accuracy:" + recorded_name(l.device_origin, base_dir) + " vs " + recorded_name(l.reference_origin, base_dir);
  for (const FigureRow& row : kFigures) {
    const Figure& f = l.metrics.*(row.member);
    const std::string name = accuracy_metric_name(l.layer, row.name, isolated);
    if (!f.value) {
      out.metrics.push_back(catalogued_missing(Level::accuracy, name, f.unavailable));
      continue;
    }
    // +inf (identical tensors) is kept as the value and spelled in the text,
    // which JSON sinks show and compare treats as a category.
    out.metrics.push_back(catalogued_metric(Level::accuracy, name, *f.value, measured, source,
                                            std::isinf(*f.value) ? (*f.value > 0 ? "+inf" : "-inf") : ""));
  }
  out.metrics.push_back(catalogued_metric(Level::accuracy, accuracy_metric_name(l.layer, "device_nan_inf", isolated),
                                          static_cast<double>(l.stats.dev_nan + l.stats.dev_inf), measured, source));
}

void all_unavailable(const std::string& why, Analysis& out) {
  for (const char* name : {"accuracy.layers", "accuracy.min_cosine", "accuracy.min_psnr_db"})
    out.metrics.push_back(catalogued_missing(Level::accuracy, name, why));
  Verdict v;
  v.level = Level::accuracy;
  v.check = "accuracy.expect.dumps";
  v.expected = "the reference and device dumps compared";
  v.measured = "unavailable: " + why;
  v.status = VerdictStatus::fail;
  v.detail = why;
  out.verdicts.push_back(v);
}

// One verdict per kind of check, naming the failing layers worst first.
void threshold_verdicts(const AccuracyConfig& cfg, const accuracy::AccuracyComparison& c, Analysis& out) {
  const std::vector<const LayerAccuracy*> worst = accuracy::worst_first(c.layers);
  {
    Verdict v;
    v.level = Level::accuracy;
    v.check = "accuracy.expect.device_finite";
    v.expected = "no NaN/Inf in the device output";
    std::vector<std::string> bad;
    for (const LayerAccuracy* l : worst)
      if (l->device_non_finite())
        bad.push_back(fmt::format("{} ({} NaN, {} Inf)", l->layer, l->stats.dev_nan, l->stats.dev_inf));
    v.status = bad.empty() ? VerdictStatus::pass : VerdictStatus::fail;
    v.measured = bad.empty() ? "none" : fmt::format("{} layers", bad.size());
    if (!bad.empty()) v.detail = fmt::format("NaN/Inf in the device output of {}", fmt::join(bad, ", "));
    out.verdicts.push_back(v);
  }
  struct Kind {
    const char* key;
    bool cosine;
  };
  for (Kind k : {Kind{"cosine_min", true}, Kind{"psnr_min_db", false}}) {
    std::vector<std::string> failing, unavailable;
    std::string wheres;
    bool any = false;
    for (const LayerAccuracy* l : worst) {
      Thresholds t = thresholds_for(cfg, l->layer);
      const std::optional<double>& bound = k.cosine ? t.cosine_min : t.psnr_min_db;
      if (!bound) continue;
      any = true;
      const Figure& f = k.cosine ? l->metrics.cosine : l->metrics.psnr_db;
      if (!f.value) {
        unavailable.push_back(fmt::format("{} ({})", l->layer, f.unavailable));
        continue;
      }
      if (*f.value < *bound)
        failing.push_back(k.cosine ? fmt::format("{} {:.6f} < {}", l->layer, *f.value, *bound)
                                   : fmt::format("{} {:.2f} dB < {} dB", l->layer, *f.value, *bound));
    }
    if (!any) continue;
    Verdict v;
    v.level = Level::accuracy;
    v.check = std::string("accuracy.expect.") + k.key;
    v.expected = k.cosine ? fmt::format(">= {} per layer", cfg.cosine_min ? fmt::format("{}", *cfg.cosine_min) : "the pattern's bound")
                          : fmt::format(">= {} dB per layer", cfg.psnr_min_db ? fmt::format("{}", *cfg.psnr_min_db) : "the pattern's bound");
    if (!cfg.layers.empty()) v.expected += " ([[accuracy.layer]] patterns first)";
    const LayerAccuracy* w = worst.front();
    v.measured = fmt::format("worst {} {}", w->layer,
                             k.cosine ? show_figure(w->metrics.cosine, "{:.6f}") : show_figure(w->metrics.psnr_db, "{:.2f} dB"));
    if (!failing.empty()) {
      v.status = VerdictStatus::fail;
      const std::size_t n = std::min<std::size_t>(failing.size(), static_cast<std::size_t>(cfg.worst));
      v.detail = fmt::format("{} of {} layers below: {}{}", failing.size(), c.layers.size(),
                             fmt::join(failing.begin(), failing.begin() + static_cast<std::ptrdiff_t>(n), "; "),
                             failing.size() > n ? "; ..." : "");
    } else if (!unavailable.empty()) {
      v.status = VerdictStatus::fail;
      v.detail = fmt::format("no figure to check for {}", fmt::join(unavailable, "; "));
    } else {
      v.status = VerdictStatus::pass;
    }
    out.verdicts.push_back(v);
  }
}

}  // namespace

void analyse_accuracy(const Scenario& scenario, const AccuracyRecording* rec, const std::string& base_dir,
                      Provenance measured, Analysis& out) {
  if (!scenario.accuracy) {  // said, as every level does, so that a summary never drops it silently
    out.metrics.push_back(catalogued_missing(Level::accuracy, "accuracy", "the scenario has no [accuracy] section"));
    return;
  }
  const AccuracyConfig& cfg = *scenario.accuracy;
  if (!rec || !rec->unavailable.empty() || rec->dumps.empty()) {
    all_unavailable(rec && !rec->unavailable.empty() ? rec->unavailable : "no dumps were recorded", out);
    return;
  }
  const AccuracyDumpRecording* ref = nullptr;
  std::vector<const AccuracyDumpRecording*> devices;
  for (const AccuracyDumpRecording& d : rec->dumps) {
    if (d.role == "reference") ref = &d;
    else devices.push_back(&d);
    if (std::string why = changed_file(d, base_dir); !why.empty()) {
      all_unavailable(why, out);
      return;
    }
  }
  if (!ref) {
    all_unavailable("the recording has no reference dumps", out);
    return;
  }
  accuracy::CompareOptions options;
  if (!rec->map.empty()) {
    Result<std::string> map = resolve(base_dir, rec->map);
    if (!map) return all_unavailable(map.error().message, out);
    options.map_path = *map;
  }
  Result<std::string> ref_path = resolve(base_dir, ref->path);
  if (!ref_path) return all_unavailable(ref_path.error().message, out);
  for (const AccuracyDumpRecording* d : devices) {
    const bool isolated = d->role == "isolated";
    options.mode = isolated ? accuracy::DumpMode::isolated : accuracy::DumpMode::cumulative;
    Result<std::string> dev_path = resolve(base_dir, d->path);
    if (!dev_path) return all_unavailable(dev_path.error().message, out);
    Result<accuracy::AccuracyComparison> c = accuracy::compare_tensor_sets(*ref_path, *dev_path, options);
    if (!c) {
      all_unavailable(c.error().message, out);
      return;
    }
    for (const LayerAccuracy& l : c->layers) push_layer_metrics(l, isolated, measured, base_dir, out);
    if (isolated) continue;
    // Each layer's bounds as declared figures: reports draw them beside the bars.
    for (const LayerAccuracy& l : c->layers) {
      Thresholds t = thresholds_for(cfg, l.layer);
      if (t.cosine_min)
        out.metrics.push_back(catalogued_metric(Level::accuracy, accuracy_metric_name(l.layer, "cosine_min"),
                                                *t.cosine_min, Provenance::declared, t.where_cosine));
      if (t.psnr_min_db)
        out.metrics.push_back(catalogued_metric(Level::accuracy, accuracy_metric_name(l.layer, "psnr_min_db"),
                                                *t.psnr_min_db, Provenance::declared, t.where_psnr));
    }
    const std::string source = "accuracy:" + d->path;
    out.metrics.push_back(
        catalogued_metric(Level::accuracy, "accuracy.layers", static_cast<double>(c->layers.size()), measured, source));
    std::vector<std::string> unpaired;
    for (const std::string& n : c->reference_only) unpaired.push_back(n + " (reference only)");
    for (const std::string& n : c->device_only) unpaired.push_back(n + " (device only)");
    out.metrics.push_back(catalogued_metric(Level::accuracy, "accuracy.unpaired", static_cast<double>(unpaired.size()),
                                            measured, source));
    if (!unpaired.empty())
      out.hints.push_back(fmt::format("accuracy: {} unpaired layers, not compared: {}", unpaired.size(),
                                      fmt::join(unpaired, ", ")));
    std::vector<const LayerAccuracy*> worst = accuracy::worst_first(c->layers);
    double min_cos = std::numeric_limits<double>::infinity(), min_psnr = std::numeric_limits<double>::infinity();
    std::string min_cos_layer, min_psnr_layer;
    for (const LayerAccuracy& l : c->layers) {
      if (l.metrics.cosine.value && *l.metrics.cosine.value < min_cos) min_cos = *l.metrics.cosine.value, min_cos_layer = l.layer;
      if (l.metrics.psnr_db.value && *l.metrics.psnr_db.value < min_psnr)
        min_psnr = *l.metrics.psnr_db.value, min_psnr_layer = l.layer;
    }
    if (min_cos_layer.empty())
      out.metrics.push_back(catalogued_missing(Level::accuracy, "accuracy.min_cosine", "no layer has a cosine"));
    else
      out.metrics.push_back(
          catalogued_metric(Level::accuracy, "accuracy.min_cosine", min_cos, measured, "accuracy:" + min_cos_layer));
    if (min_psnr_layer.empty())
      out.metrics.push_back(catalogued_missing(Level::accuracy, "accuracy.min_psnr_db", "no layer has a PSNR"));
    else
      out.metrics.push_back(catalogued_metric(Level::accuracy, "accuracy.min_psnr_db", min_psnr, measured,
                                              "accuracy:" + min_psnr_layer, std::isinf(min_psnr) ? "+inf" : ""));
    threshold_verdicts(cfg, *c, out);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < worst.size() && i < static_cast<std::size_t>(cfg.worst); ++i)
      names.push_back(fmt::format("{} (cosine {}, PSNR {})", worst[i]->layer, show_figure(worst[i]->metrics.cosine, "{:.6f}"),
                                  show_figure(worst[i]->metrics.psnr_db, "{:.2f} dB")));
    out.hints.push_back(fmt::format("accuracy: worst layers ({}): {}; {}", accuracy::dump_mode_name(c->mode),
                                    fmt::join(names, "; "), accuracy::kPsnrPeakDefinition));
  }
}

void add_accuracy_fallback_candidates(const Scenario& scenario, Analysis& out) {
  if (!scenario.accuracy) return;
  const AccuracyConfig& cfg = *scenario.accuracy;
  const Metric* total = out.find_metric("profile.total_time");
  if (!total || !total->value || *total->value <= 0) return;  // no layer profile: nothing to set beside
  // Layers of the cumulative comparison, worst first by cosine.
  struct Row {
    std::string layer;
    double cosine;
    std::optional<double> psnr;
    bool failing;
  };
  std::vector<Row> rows;
  for (const Metric& m : out.metrics) {
    const std::string prefix = "accuracy.", suffix = ".cosine";
    if (m.level != Level::accuracy || m.name.rfind(prefix, 0) != 0 || m.name.size() <= prefix.size() + suffix.size() ||
        m.name.compare(m.name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
        m.name.rfind("accuracy.isolated.", 0) == 0 || !m.value)
      continue;
    std::string layer = m.name.substr(prefix.size(), m.name.size() - prefix.size() - suffix.size());
    const Metric* p = out.find_metric(accuracy_metric_name(layer, "psnr_db"));
    Thresholds t = thresholds_for(cfg, layer);
    std::optional<double> psnr = p && p->value ? p->value : std::nullopt;
    bool failing = (t.cosine_min && *m.value < *t.cosine_min) || (t.psnr_min_db && psnr && *psnr < *t.psnr_min_db);
    rows.push_back({layer, *m.value, psnr, failing});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.cosine < b.cosine; });
  const bool any_failing = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.failing; });
  std::vector<std::string> listed;
  double share_sum = 0;
  for (const Row& r : rows) {
    if (any_failing ? !r.failing : listed.size() >= static_cast<std::size_t>(cfg.worst)) continue;
    const Metric* time = out.find_metric("layer." + r.layer + ".time");
    if (!time || !time->value) continue;  // not in the profile under this name
    const double share = *time->value / *total->value;
    share_sum += share;
    out.metrics.push_back(catalogued_metric(Level::accuracy, "accuracy.fp16_candidate." + r.layer + ".latency_share",
                                            share, time->provenance,
                                            "layer profile: " + time->source + " / profile total"));
    listed.push_back(fmt::format("{} (cosine {:.6f}, {:.1f} % of the profiled latency)", r.layer, r.cosine, share * 100));
  }
  if (listed.empty()) return;
  out.hints.push_back(fmt::format("accuracy: FP16-fallback candidates ({}): {}; together {:.1f} % of the profiled "
                                  "latency would leave INT8",
                                  any_failing ? "layers failing a threshold" : "the worst layers",
                                  fmt::join(listed, "; "), share_sum * 100));
}

std::vector<Verdict> evaluate_accuracy_baseline(const AccuracyConfig& cfg, const Analysis& baseline,
                                                const Analysis& current) {
  std::vector<Verdict> out;
  struct Kind {
    const char* key;
    const char* figure;
    std::optional<double> max;
    std::string where;
  };
  for (Kind k : {Kind{"psnr_drop_max_db", "psnr_db", cfg.psnr_drop_max_db, cfg.psnr_drop_where},
                 Kind{"cosine_drop_max", "cosine", cfg.cosine_drop_max, cfg.cosine_drop_where}}) {
    if (!k.max) continue;
    Verdict v;
    v.level = Level::accuracy;
    v.check = std::string("accuracy.baseline.") + k.key;
    const bool db = std::string_view(k.figure) == "psnr_db";
    v.expected = db ? fmt::format("no layer's PSNR drops by more than {} dB against the baseline", *k.max)
                    : fmt::format("no layer's cosine drops by more than {} against the baseline", *k.max);
    const std::string suffix = std::string(".") + k.figure;
    std::vector<std::pair<double, std::string>> drops;  // drop, text
    std::size_t compared = 0;
    for (const Metric& c : current.metrics) {
      if (c.level != Level::accuracy || c.name.rfind("accuracy.", 0) != 0 || c.name.rfind("accuracy.isolated.", 0) == 0 ||
          c.name.size() <= suffix.size() || c.name.compare(c.name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
          c.name.rfind("accuracy.min_", 0) == 0)
        continue;
      const Metric* b = baseline.find_metric(c.name);
      if (!b || !b->value || !c.value) continue;
      ++compared;
      // +inf to +inf is no drop; +inf to a number drops without bound.
      double drop = (std::isinf(*b->value) && std::isinf(*c.value)) ? 0.0 : *b->value - *c.value;
      const std::string layer = c.name.substr(9, c.name.size() - 9 - suffix.size());
      drops.emplace_back(drop, db ? fmt::format("{} {} -> {} dB", layer, show_figure(Figure::of(*b->value), "{:.2f}"),
                                                show_figure(Figure::of(*c.value), "{:.2f}"))
                                  : fmt::format("{} {:.6f} -> {:.6f}", layer, *b->value, *c.value));
    }
    std::stable_sort(drops.begin(), drops.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (compared == 0) {
      v.status = VerdictStatus::unavailable;
      v.measured = "unavailable: no layer has the figure in both runs";
      out.push_back(v);
      continue;
    }
    v.measured = fmt::format("largest drop {} ({})", db ? show_figure(Figure::of(drops[0].first), "{:.2f}") + " dB"
                                                         : show_figure(Figure::of(drops[0].first), "{:.6f}"),
                             drops[0].second);
    std::vector<std::string> failing;
    for (const auto& [drop, text] : drops)
      if (drop > *k.max && failing.size() < static_cast<std::size_t>(cfg.worst)) failing.push_back(text);
    v.status = failing.empty() ? VerdictStatus::pass : VerdictStatus::fail;
    if (!failing.empty()) v.detail = fmt::format("{} ({})", fmt::join(failing, "; "), k.where);
    out.push_back(v);
  }
  return out;
}

}  // namespace harness
