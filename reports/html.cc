#include "reports/html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/base/units.h"
#include "harness/levels/level_table.h"
#include "harness/model/metric_catalogue.h"
#include "reports/console.h"
#include "reports/run_clock.h"
#include "reports/svg.h"
#include "reports/workload_marks.h"

namespace harness {
namespace {

using svg::escape_xml;

std::optional<double> finite_value(const Metric* m) {
  if (!m || !m->value || !std::isfinite(*m->value)) return std::nullopt;
  return *m->value;
}

// Each level's section opens with the level table's heading (harness/levels/level_table.cc).
std::string section_heading(Level level) {
  return fmt::format("<h2>{}</h2>\n", escape_xml(level_row(level).report_section));
}

// The names this report reads are catalogue names (harness/model/metric_catalogue.cc):
// `named` spells one exactly as the catalogue does, `falls_under` says whether
// a metric or sample set is an instance of that entry, `instance` fills a
// pattern's placeholders.
std::string named(std::string_view pattern) { return std::string(catalogue_pattern(pattern).name); }
bool falls_under(Level level, const std::string& name, std::string_view pattern, Series series = Series::metric) {
  return find_catalogue_entry(level, name, series) == &catalogue_pattern(pattern);
}
std::string instance(std::string_view pattern, std::string_view part) {
  return instance_name(catalogue_pattern(pattern).name, {part});
}

std::string change_text(std::optional<double> pct) {
  if (!pct) return "";
  return fmt::format("{:+.1f} %", *pct);
}

using svg::time_format;
std::string ticks_percent(double v) { return fmt::format("{:g} %", std::round(v * 1000) / 10); }

std::string notes_html(const std::vector<std::string>& notes) {
  if (notes.empty()) return "";
  std::string out = "<ul class=\"notes\">\n";
  for (const std::string& n : notes) out += "<li>" + escape_xml(n) + "</li>\n";
  return out + "</ul>\n";
}

std::string unavailable_html(const std::vector<std::string>& reasons) {
  std::string out;
  for (const std::string& r : reasons) out += "<p class=\"unavailable\">unavailable: " + escape_xml(r) + "</p>\n";
  return out;
}

// A verdict or comparison outcome in its own colour; "cannot tell" also with
// its mark, so it reads apart from "unavailable" at a glance.
std::string status_cell(std::string_view status) {
  std::string css(status);
  std::replace(css.begin(), css.end(), ' ', '-');
  return fmt::format("<td class=\"status {}\">{}{}</td>", escape_xml(css), status == "cannot tell" ? "❔ " : "",
                     escape_xml(status));
}

constexpr const char* kCss = R"(
body{font-family:Helvetica,Arial,sans-serif;color:#222;margin:24px auto;max-width:1180px;padding:0 16px;line-height:1.4}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin:16px 0 6px}
.meta{color:#555;font-size:13px}
.badge{display:inline-block;padding:2px 10px;border-radius:10px;font-size:13px;font-weight:bold;color:#fff;vertical-align:middle}
.badge.passed{background:#2e7d32}.badge.failed{background:#c62828}.badge.aborted{background:#6d4c41}.badge.running{background:#757575}
table{border-collapse:collapse;font-size:13px;margin:6px 0 12px}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.status{font-weight:bold} td.pass,td.improved{color:#2e7d32} td.fail,td.regressed{color:#c62828}
td.unavailable{color:#8a6d00} td.cannot-tell{color:#6a1b9a} td.unchanged{color:#555} td.changed{color:#1565c0}
.unavailable{color:#8a6d00} .notes{font-size:13px;color:#555}
.charts{display:flex;flex-wrap:wrap;gap:12px} .charts svg{border:1px solid #eee;background:#fff}
pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}
footer{margin-top:32px;color:#777;font-size:12px}
.summary{background:#fafafa;border:1px solid #e5e5e5;padding:4px 14px} .summary h3{margin-top:10px}
table.levels th{white-space:nowrap;background:none} table.levels{border:none}
)";

std::string verdict_table_html(const std::vector<Verdict>& verdicts) {
  if (verdicts.empty()) return "<p>No verdicts: the scenario sets no expectations.</p>\n";
  std::string out =
      "<table class=\"verdicts\">\n<tr><th>level</th><th>check</th><th>expected</th><th>measured</th>"
      "<th>result</th><th>detail</th></tr>\n";
  for (const Verdict& v : verdicts) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td></tr>\n",
                       level_name(v.level), escape_xml(v.check), escape_xml(v.expected), escape_xml(v.measured),
                       status_cell(verdict_status_name(v.status)), escape_xml(v.detail));
  }
  return out + "</table>\n";
}

std::string comparison_row(const MetricChange& m) {
  return fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}</td>{}<td>{}</td></tr>\n",
                     level_name(m.level), escape_xml(m.name), escape_xml(figure_text(m.baseline, m.unit)),
                     escape_xml(figure_text(m.current, m.unit)), change_text(m.change_pct),
                     m.verdict.empty() ? "<td>-</td>" : status_cell(m.verdict), escape_xml(m.detail));
}

constexpr const char* kComparisonHead =
    "<table class=\"comparison\">\n<tr><th>level</th><th>metric</th><th>baseline</th><th>this run</th>"
    "<th>change</th><th>verdict</th><th>detail</th></tr>\n";

// In the summary: what the comparison concluded, and the metrics that moved
// most, regressions first (each kind by the size of its change); the rest
// are in the full table below the charts.
constexpr std::size_t kMovedMost = 5;

std::string comparison_summary_html(const ReportComparison& c) {
  std::map<std::string, int> counts;
  std::vector<const MetricChange*> regressed, improved;
  for (const MetricChange& m : c.changes) {
    if (m.verdict.empty()) continue;
    ++counts[m.verdict];
    if (m.verdict == "regressed") regressed.push_back(&m);
    if (m.verdict == "improved") improved.push_back(&m);
  }
  std::string out = fmt::format("<h3>Compared with {}</h3>\n<p class=\"meta\">{}", escape_xml(c.baseline_label),
                                escape_xml(c.method));
  if (counts.empty()) return out + "; the per-metric differences are listed below the charts.</p>\n";
  std::string tally;  // in the order a reader looks for them
  for (const char* verdict : {"regressed", "improved", "changed", "unchanged", "cannot tell"}) {
    auto it = counts.find(verdict);
    if (it != counts.end()) tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", it->second, verdict);
  }
  out += ": " + escape_xml(tally) + ".</p>\n";
  auto by_size = [](const MetricChange* x, const MetricChange* y) {
    double a = x->change_pct ? std::fabs(*x->change_pct) : -1, b = y->change_pct ? std::fabs(*y->change_pct) : -1;
    return a > b;
  };
  std::stable_sort(regressed.begin(), regressed.end(), by_size);
  std::stable_sort(improved.begin(), improved.end(), by_size);
  std::string rows;
  std::size_t left_out = 0;
  for (const std::vector<const MetricChange*>* kind : {&regressed, &improved}) {
    for (std::size_t i = 0; i < kind->size(); ++i) {
      if (i < kMovedMost) rows += comparison_row(*(*kind)[i]);
      else ++left_out;
    }
  }
  if (!rows.empty()) out += kComparisonHead + rows + "</table>\n";
  if (left_out > 0) out += fmt::format("<p class=\"notes\">{} more regressed or improved metrics are in the full table "
                                       "below the charts.</p>\n", left_out);
  return out;
}

// The verdict in one line: how many checks passed, failed or could not be
// judged, and which failed.
std::string verdict_line_html(const RunRecord& run) {
  const std::vector<Verdict>& v = run.analysis.verdicts;
  std::string status = fmt::format("<span class=\"badge {0}\">{0}</span>", run_status_name(run.status));
  if (v.empty()) return "<p>" + status + " No verdicts: the scenario sets no expectations.</p>\n";
  int pass = 0, fail = 0, unavailable = 0, cannot_tell = 0;
  std::string failed;
  for (const Verdict& x : v) {
    if (x.status == VerdictStatus::pass) ++pass;
    if (x.status == VerdictStatus::unavailable) ++unavailable;
    if (x.status == VerdictStatus::cannot_tell) ++cannot_tell;
    if (x.status == VerdictStatus::fail) {
      ++fail;
      failed += (failed.empty() ? "" : ", ") + escape_xml(x.check);
    }
  }
  std::string out = fmt::format("<p>{} {} check{}: {} pass, {} fail, {} unavailable", status, v.size(),
                                v.size() == 1 ? "" : "s", pass, fail, unavailable);
  if (cannot_tell) out += fmt::format(", {} cannot tell", cannot_tell);
  if (!failed.empty()) out += "; failed: " + failed;
  return out + ".</p>\n";
}

// One line per level (the same headline figures as the terminal's summary).
std::string level_lines_html(const Analysis& a) {
  std::vector<LevelHeadline> levels = level_headlines(a);
  if (levels.empty()) return {};
  std::string out = "<table class=\"levels\">\n";
  for (const LevelHeadline& h : levels) {
    std::string text;
    for (const std::string& line : h.lines) text += (text.empty() ? "" : "<br>") + escape_xml(line);
    out += fmt::format("<tr><th>Level {}: {}</th><td>{}</td></tr>\n", static_cast<int>(h.level), level_name(h.level),
                       text);
  }
  return out + "</table>\n";
}

std::string summary_html(const ReportInput& in) {
  std::string out = "<h2>Summary</h2>\n<div class=\"summary\">\n" + verdict_line_html(in.run);
  if (in.comparison) out += comparison_summary_html(*in.comparison);
  out += level_lines_html(in.run.analysis);
  return out + "</div>\n";
}

// Below the charts: every metric either run has a value for.
std::string comparison_table_html(const ReportComparison& c) {
  std::string rows;
  int neither = 0;
  for (const MetricChange& m : c.changes) {
    if (!m.baseline && !m.current) {
      ++neither;
      continue;
    }
    rows += comparison_row(m);
  }
  std::string out = fmt::format("<h2>All differences from {}</h2>\n", escape_xml(c.baseline_label));
  out += rows.empty() ? "<p>No metric has a value in either run.</p>\n" : kComparisonHead + rows + "</table>\n";
  if (neither > 0) out += fmt::format("<p class=\"notes\">{} metrics are unavailable in both runs; their reasons are in the "
                                      "figures table.</p>\n", neither);
  return out;
}

// ---- level sections -----------------------------------------------------------

// A histogram axis scaled to this run's samples: from the smallest to the
// largest p99.5 of its sets, so that a few far outliers do not squeeze the
// distribution into a corner (the samples beyond go into the last bin, and
// the report says how many), with bins fine enough that the narrowest set
// still shows its shape.
struct ScaledRange {
  double lo = INFINITY, hi = -INFINITY;
  std::size_t beyond = 0;
  int bins = 0;  // 0: the chart chooses
};

ScaledRange scaled_range(const std::vector<const std::vector<double>*>& sets) {
  ScaledRange r;
  double narrowest = INFINITY;
  for (const std::vector<double>* s : sets) {
    std::vector<double> v;
    for (double x : *s)
      if (std::isfinite(x)) v.push_back(x);
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    r.lo = std::min(r.lo, v.front());
    r.hi = std::max(r.hi, percentile_sorted(v, 99.5));
    double w = v.size() >= 2 ? percentile_sorted(v, 99) - v.front() : 0;
    if (w > 0) narrowest = std::min(narrowest, w);
  }
  for (const std::vector<double>* s : sets)
    for (double x : *s)
      if (std::isfinite(x) && x > r.hi) ++r.beyond;
  if (std::isfinite(narrowest) && r.hi > r.lo)
    r.bins = static_cast<int>(std::clamp(std::ceil(12 * (r.hi - r.lo) / narrowest), 12.0, 80.0));
  return r;
}

// The baseline's samples on this run's axis; those off it are counted, not
// piled into an end bin (which would draw a peak the baseline does not have).
std::vector<double> within(const ScaledRange& r, const std::vector<double>& values, std::size_t& outside) {
  std::vector<double> kept;
  for (double x : values) {
    if (!std::isfinite(x)) continue;
    if (x < r.lo || x > r.hi) ++outside;
    else kept.push_back(x);
  }
  return kept;
}

std::string outside_note(std::size_t outside, double hi, const std::string& unit) {
  if (outside == 0) return {};
  return fmt::format("<p class=\"meta\">{} sample{} of the baseline lie{} off this run's axis (which ends at {}) and "
                     "{} not drawn; the figures tables compare them.</p>\n",
                     outside, outside == 1 ? "" : "s", outside == 1 ? "s" : "", format_quantity(hi, unit),
                     outside == 1 ? "is" : "are");
}

std::string roofline_section(const ReportInput& in) {
  std::string out = section_heading(Level::roofline);
  std::vector<std::string> notes;
  const Analysis* base = in.baseline ? &in.baseline->analysis : nullptr;
  RooflineData data = roofline_data(in.run.analysis, base, notes);
  if (data.compute.empty() && data.memory.empty() && data.points.empty()) {
    std::vector<std::string> reasons = level_unavailable_reasons(in.run.analysis, Level::roofline);
    if (reasons.empty()) reasons.push_back("no ceilings or kernels in this run");
    return out + unavailable_html(reasons) + notes_html(notes);
  }
  RooflineLayout layout = layout_roofline(data);
  for (const std::string& s : layout.skipped) notes.push_back(s);
  out += "<div class=\"charts\">\n" + render_roofline(data) + "</div>\n";
  if (layout.points.size() > kNamedPoints) {
    out += "<table class=\"point-key\">\n<tr><th>#</th><th>kernel or layer</th></tr>\n";
    for (std::size_t i = 0; i < layout.points.size(); ++i) {
      out += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td></tr>\n", i + 1, escape_xml(layout.points[i].label));
    }
    out += "</table>\n";
  }
  return out + notes_html(notes);
}

// The run's stored recording (iteration times, power readings), read once
// and only by a chart that needs it.
class RecordingOnce {
 public:
  explicit RecordingOnce(const RunRecord& run) : run_(run) {}
  const Result<Recording>& get() {
    if (!parsed_) parsed_.emplace(stored_recording(run_));
    return *parsed_;
  }

 private:
  const RunRecord& run_;
  std::optional<Result<Recording>> parsed_;
};

std::string latency_section(const ReportInput& in, RecordingOnce& recording) {
  std::string out = section_heading(Level::latency);
  const Analysis& a = in.run.analysis;
  LatencyPanels drawn = latency_panels(a, in.baseline ? &in.baseline->analysis : nullptr);
  if (drawn.panels.empty()) {
    std::vector<std::string> reasons = level_unavailable_reasons(a, Level::latency);
    if (reasons.empty()) reasons.push_back("no latency samples in this run");
    return out + unavailable_html(reasons);
  }
  out += "<div class=\"charts\">\n";
  for (const svg::HistogramSpec& spec : drawn.panels) out += svg::histogram_chart(spec);
  out += "</div>\n";
  if (drawn.beyond > 0) {
    out += fmt::format("<p class=\"meta\">The axes end at this run's largest p99.5 ({}); {} sample{} beyond it {} "
                       "counted in the last bin.</p>\n",
                       format_quantity(drawn.hi, "s"), drawn.beyond, drawn.beyond == 1 ? "" : "s",
                       drawn.beyond == 1 ? "is" : "are");
  }
  out += outside_note(drawn.baseline_outside, drawn.hi, "s");
  // The power meter's readings, with the iterations it saw.
  std::vector<std::string> unmarked;
  if (const Result<Recording>& stored = recording.get()) {
    std::string power;
    for (const PowerChart& chart : power_charts(*stored)) {
      power += svg::line_chart(chart.spec);
      if (!chart.no_marks.empty()) unmarked.push_back(chart.no_marks);
    }
    if (!power.empty()) out += "<div class=\"charts\">\n" + power + "</div>\n" + notes_html(unmarked);
  }
  return out;
}

std::string ddr_section(const ReportInput& in, RecordingOnce& recording) {
  std::string out = section_heading(Level::ddr);
  const Analysis& a = in.run.analysis;
  const Analysis* base = in.baseline ? &in.baseline->analysis : nullptr;
  std::string charts;
  std::vector<std::string> notes;
  for (const SampleSet& s : a.samples) {
    if (s.level != Level::ddr) continue;
    const SampleSet* b = base ? base->find_samples(s.name) : nullptr;
    if (falls_under(s.level, s.name, "ddr.read_interval", Series::samples)) {
      svg::HistogramSpec spec;
      spec.title = "read-command interval (" + s.name + ")";
      spec.values = s.values;
      const ScaledRange range = scaled_range({&s.values});
      std::size_t outside = 0;
      if (b) spec.baseline = within(range, b->values, outside);
      if (std::isfinite(range.lo) && std::isfinite(range.hi)) spec.range = std::make_pair(range.lo, range.hi);
      spec.bins = range.bins;
      spec.x_title = s.unit == "s" ? "interval" : "interval (" + s.unit + ")";
      if (s.unit == "s") spec.x_format = time_format(std::isfinite(range.hi) ? range.hi : 0);
      charts += svg::histogram_chart(spec);
      if (range.beyond > 0)
        notes.push_back(fmt::format("read-command intervals: the axis ends at this run's p99.5 ({}); {} beyond it counted "
                                    "in the last bin", format_quantity(range.hi, s.unit), range.beyond));
      if (outside > 0)
        notes.push_back(fmt::format("read-command intervals: {} of the baseline's lie off this run's axis, not drawn",
                                    outside));
    } else if (falls_under(s.level, s.name, "ddr.dq_active_timeline", Series::samples)) {
      svg::LineSpec spec;
      spec.title = s.provenance == Provenance::model ? "DQ bus activity over time (from command timing)"
                                                     : "DQ bus activity over time (from DQS toggles)";
      spec.ys = s.values;
      if (b) spec.baseline = b->values;
      spec.x_title = "capture window";
      spec.y_title = "utilisation";
      if (s.unit == "1" || s.unit.empty()) {
        spec.y_range = std::make_pair(0.0, 1.0);
        spec.y_format = &ticks_percent;
      }
      if (std::string why = mark_dq_timeline(recording.get(), spec); !why.empty()) notes.push_back(why);
      charts += svg::line_chart(spec);
    }
  }
  // Bytes per transaction: level 3 counts the transactions of each size as
  // "ddr.transactions.<N>B".
  // The sizes either run saw; a size a capture never saw is zero of its
  // transactions (when that run decoded any).
  std::map<double, std::string> sized;
  for (const Analysis* run : {&a, base}) {
    if (!run) continue;
    for (const Metric& m : run->metrics) {
      if (!falls_under(m.level, m.name, "ddr.transactions.<N>B")) continue;
      const std::string digits = *placeholder_value(named("ddr.transactions.<N>B"), m.name);
      char* end = nullptr;
      double size = std::strtod(digits.c_str(), &end);
      if (!digits.empty() && end && *end == '\0') sized[size] = m.name;
    }
  }
  if (!sized.empty()) {
    auto count = [](const Analysis& run, const std::string& name) -> std::optional<double> {
      if (!finite_value(run.find_metric(named("ddr.transactions")))) return std::nullopt;
      return finite_value(run.find_metric(name)).value_or(0);
    };
    svg::BarSpec spec;
    spec.title = "bytes per transaction";
    spec.y_title = "transactions";
    for (const auto& [size, name] : sized) {
      svg::Bar bar{svg::tick_label(size) + " B", count(a, name), std::nullopt};
      if (base) bar.baseline = count(*base, name);
      spec.bars.push_back(bar);
    }
    charts = svg::bar_chart(spec) + charts;
  }
  if (charts.empty()) {
    std::vector<std::string> reasons = level_unavailable_reasons(a, Level::ddr);
    if (reasons.empty()) return out + "<p>No DDR distributions in this run; its figures are in the table below.</p>\n";
    return out + unavailable_html(reasons);
  }
  return out + "<div class=\"charts\">\n" + charts + "</div>\n" + notes_html(notes);
}

std::string counters_section(const ReportInput& in) {
  std::string out = section_heading(Level::counters);
  const Analysis& a = in.run.analysis;
  const Analysis* base = in.baseline ? &in.baseline->analysis : nullptr;
  svg::PairedSpec spec;
  spec.title = base ? "counters: baseline and this run" : "counters";
  std::vector<std::string> notes;
  for (const Metric& m : a.metrics) {
    if (m.level != Level::counters || m.name == named("counters")) continue;
    svg::PairedRow row;
    row.label = m.name;
    row.value = finite_value(&m);
    row.value_text = row.value ? figure_text(row.value, m.unit) : "unavailable: " + m.unavailable;
    if (base) {
      const Metric* b = base->find_metric(m.name);
      row.baseline = finite_value(b);
      row.baseline_text = row.baseline ? figure_text(row.baseline, m.unit)
                                       : (b ? "unavailable: " + b->unavailable : "not in the baseline");
      if (row.baseline && row.value && *row.baseline != 0) {
        row.value_text += fmt::format(" ({:+.1f} %)", (*row.value - *row.baseline) / std::fabs(*row.baseline) * 100);
      }
    }
    if (!row.value && !row.baseline) {
      notes.push_back(m.name + ": unavailable: " + m.unavailable);
      continue;
    }
    spec.rows.push_back(row);
  }
  if (spec.rows.empty()) {
    std::vector<std::string> reasons = level_unavailable_reasons(a, Level::counters);
    if (reasons.empty()) reasons.push_back("no counters in this run");
    return out + unavailable_html(reasons) + notes_html(notes);
  }
  return out + "<div class=\"charts\">\n" + svg::paired_bars(spec) + "</div>\n" + notes_html(notes);
}

// Level 5: per-layer bars of cosine and PSNR, worst first, each with its
// threshold; the FP16-fallback candidates with their share of latency.
std::string accuracy_section(const ReportInput& in) {
  const Analysis& a = in.run.analysis;
  bool any = false;
  for (const Metric& m : a.metrics) any = any || m.level == Level::accuracy;
  if (!any) return {};  // a run stored before level 5 said why it was absent
  std::string out = section_heading(Level::accuracy);
  struct Layer {
    std::string name;
    const Metric* cosine;
    const Metric* psnr;
  };
  std::vector<Layer> layers;
  for (const Metric& m : a.metrics) {
    if (!falls_under(m.level, m.name, "accuracy.<layer>.cosine")) continue;
    std::string layer = *placeholder_value(named("accuracy.<layer>.cosine"), m.name);
    layers.push_back({layer, &m, a.find_metric(instance("accuracy.<layer>.psnr_db", layer))});
  }
  if (layers.empty()) {
    std::vector<std::string> reasons = level_unavailable_reasons(a, Level::accuracy);
    if (reasons.empty()) reasons.push_back("no layer was compared");
    return out + unavailable_html(reasons);
  }
  auto worst_key = [](const Metric* m) { return m && m->value ? *m->value : -1e308; };
  std::stable_sort(layers.begin(), layers.end(),
                   [&](const Layer& x, const Layer& y) { return worst_key(x.cosine) < worst_key(y.cosine); });
  auto text = [](const Metric* m, const char* spec) -> std::string {
    if (!m) return "not computed";
    if (!m->value) return "unavailable: " + m->unavailable;
    if (std::isinf(*m->value)) return *m->value > 0 ? "+inf" : "-inf";
    return fmt::format(fmt::runtime(spec), *m->value);
  };
  svg::LayerBarSpec cos;
  cos.title = "cosine similarity per layer, worst first";
  cos.x_title = "cosine similarity (reference vs device, cumulative)";
  svg::LayerBarSpec psnr;
  psnr.title = "PSNR per layer (same order)";
  psnr.x_title = "PSNR, dB (peak = the reference's range)";
  for (const Layer& l : layers) {
    const Metric* cmin = a.find_metric(instance("accuracy.<layer>.cosine_min", l.name));
    const Metric* pmin = a.find_metric(instance("accuracy.<layer>.psnr_min_db", l.name));
    cos.rows.push_back({l.name, l.cosine->value, cmin ? cmin->value : std::nullopt, text(l.cosine, "{:.6f}")});
    psnr.rows.push_back({l.name, l.psnr && l.psnr->value ? l.psnr->value : std::nullopt,
                         pmin ? pmin->value : std::nullopt, text(l.psnr, "{:.2f} dB")});
  }
  out += "<div class=\"charts\">\n" + svg::layer_bars(cos) + svg::layer_bars(psnr) + "</div>\n";
  // FP16-fallback candidates beside level 1's layer profile.
  std::string rows;
  for (const Metric& m : a.metrics) {
    if (!falls_under(m.level, m.name, "accuracy.fp16_candidate.<layer>.latency_share") || !m.value) continue;
    std::string layer = *placeholder_value(named("accuracy.fp16_candidate.<layer>.latency_share"), m.name);
    // Level 1's placement of the same layer: what moving it costs or frees.
    const Metric* bound = a.find_metric(instance("layer.<layer>.bound", layer));
    rows += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1f} %</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        escape_xml(layer), escape_xml(text(a.find_metric(instance("accuracy.<layer>.cosine", layer)), "{:.6f}")),
        escape_xml(text(a.find_metric(instance("accuracy.<layer>.psnr_db", layer)), "{:.2f} dB")), *m.value * 100,
        escape_xml(bound && bound->value ? bound->text + "-bound" : "not placed"), escape_xml(m.source));
  }
  if (!rows.empty())
    out += "<h3>FP16-fallback candidates</h3>\n<table class=\"figures\">\n<tr><th>layer</th><th>cosine</th><th>PSNR</th>"
           "<th>share of latency</th><th>roofline</th><th>latency from</th></tr>\n" + rows + "</table>\n";
  else
    out += "<p class=\"meta\">FP16-fallback candidates: no layer profile with the same layer names in this run.</p>\n";
  return out;
}

// The renderer of each level's section, in the level table's order.
std::string level_section(Level level, const ReportInput& in, RecordingOnce& recording) {
  switch (level) {
    case Level::roofline:
      return roofline_section(in);
    case Level::counters:
      return counters_section(in);
    case Level::ddr:
      return ddr_section(in, recording);
    case Level::latency:
      return latency_section(in, recording);
    case Level::accuracy:
      return accuracy_section(in);
  }
  return {};
}

std::string figures_html(const Analysis& a) {
  std::string out = "<h2>Figures and their provenance</h2>\n";
  for (Level level : kAllLevels) {
    out += fmt::format("<h3>{}</h3>\n", level_name(level));
    out += "<table class=\"figures\">\n<tr><th>metric</th><th>value</th><th>provenance</th><th>source</th></tr>\n";
    int rows = 0;
    for (const Metric& m : a.metrics) {
      if (m.level != level) continue;
      ++rows;
      if (m.value) {
        out += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n", escape_xml(m.name),
                           escape_xml(metric_value_text(m)), provenance_name(m.provenance), escape_xml(m.source));
      } else {
        out += fmt::format("<tr><td>{}</td><td class=\"unavailable\" colspan=\"3\">unavailable: {}</td></tr>\n",
                           escape_xml(m.name), escape_xml(m.unavailable));
      }
    }
    for (const SampleSet& s : a.samples) {
      if (s.level != level) continue;
      ++rows;
      out += fmt::format("<tr><td>{} (samples)</td><td class=\"num\">{} values, {}</td><td>{}</td><td>{}</td></tr>\n",
                         escape_xml(s.name), s.values.size(), escape_xml(s.unit), provenance_name(s.provenance),
                         escape_xml(s.source));
    }
    if (rows == 0) out += "<tr><td colspan=\"4\">no figures</td></tr>\n";
    out += "</table>\n";
  }
  return out;
}

std::string context_html(const RunRecord& run) {
  std::string out = "<h2>Run context</h2>\n<table class=\"context\">\n";
  auto row = [&](std::string_view k, std::string_view v) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escape_xml(k), escape_xml(v));
  };
  row("scenario", run.scenario_name);
  row("scenario file", run.scenario_path);
  row("scenario sha256", run.scenario_hash);
  row("rig", run.rig);
  row("origin", run.origin);
  for (const auto& [k, v] : run.context) row(k, v);
  out += "</table>\n";
  if (!run.artifacts.empty()) {
    out += "<h3>Artifacts</h3>\n<table class=\"artifacts\">\n<tr><th>name</th><th>kind</th><th>path</th>"
           "<th>size</th><th>sha256</th></tr>\n";
    for (const Artifact& x : run.artifacts) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{} B</td><td>{}</td></tr>\n",
                         escape_xml(x.name), escape_xml(x.kind), escape_xml(x.path), x.size, escape_xml(x.sha256));
    }
    out += "</table>\n";
  }
  if (!run.scenario_text.empty()) {
    out += "<details><summary>scenario file as run</summary>\n<pre>" + escape_xml(run.scenario_text) +
           "</pre></details>\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> level_unavailable_reasons(const Analysis& a, Level level) {
  std::vector<std::string> reasons;
  for (const Metric& m : a.metrics) {
    if (m.level != level) continue;
    if (m.value) return {};
    std::string r = m.unavailable.empty() ? "no reason recorded" : m.unavailable;
    if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
  }
  return reasons;
}

LatencyPanels latency_panels(const Analysis& a, const Analysis* base) {
  LatencyPanels drawn;
  struct Panel {
    std::string title, samples;
    std::string load;  // "" for the first condition, else its name in "load.<load>."
  };
  std::vector<Panel> panels;
  // A condition's set says its load in its source (level 4 writes
  // ' under load "stress-ng --cpu 4"'); the first condition is "latency",
  // the others "load.<name>.latency", whichever load each has.
  auto title_of = [](const SampleSet& s) {
    constexpr std::string_view marker = " under load \"";
    std::size_t at = s.source.find(marker);
    if (at == std::string::npos) return std::string("without load");
    std::size_t from = at + marker.size(), to = s.source.find('"', from);
    return "under load: " + s.source.substr(from, to == std::string::npos ? std::string::npos : to - from);
  };
  if (const SampleSet* s = a.find_samples(named("latency"))) panels.push_back({title_of(*s), s->name, ""});
  for (const SampleSet& s : a.samples) {
    if (falls_under(s.level, s.name, "load.<load>.latency", Series::samples))
      panels.push_back({title_of(s), s.name, *placeholder_value(named("load.<load>.latency"), s.name)});
  }
  if (panels.empty()) return drawn;
  // One x range for all panels, so that with and without load read side by
  // side, scaled to this run's samples (see ScaledRange): a slow baseline's
  // tail must not squeeze this run's distributions into a corner.
  std::vector<const std::vector<double>*> own;
  for (const Panel& p : panels) own.push_back(&a.find_samples(p.samples)->values);
  const ScaledRange range = scaled_range(own);
  const double lo = range.lo, hi = range.hi;
  std::size_t beyond = range.beyond;
  int bins = range.bins;
  for (const Panel& p : panels) {
    svg::HistogramSpec spec;
    spec.title = p.title;
    spec.values = a.find_samples(p.samples)->values;
    if (base)
      if (const SampleSet* b = base->find_samples(p.samples)) spec.baseline = within(range, b->values, drawn.baseline_outside);
    if (std::isfinite(lo) && std::isfinite(hi)) spec.range = std::make_pair(lo, hi);
    spec.x_title = "latency";
    spec.bins = bins;
    spec.x_format = time_format(std::isfinite(hi) ? hi : 0);
    for (const char* q : {"p50", "p95", "p99"}) {
      const std::string metric = std::string("latency_") + q;
      const std::string name = p.load.empty() ? named(metric) : instance("load.<load>." + metric, p.load);
      if (auto v = finite_value(a.find_metric(name))) spec.markers.push_back({q, *v});
    }
    drawn.panels.push_back(std::move(spec));
  }
  drawn.beyond = beyond;
  drawn.hi = std::isfinite(hi) ? hi : 0;
  return drawn;
}

RooflineData roofline_data(const Analysis& a, const Analysis* base, std::vector<std::string>& notes) {
  RooflineData data;
  for (const Metric& m : a.metrics) {
    if (m.level != Level::roofline) continue;
    for (auto [pattern, list] : {std::pair{std::string_view("ceiling.compute.<name>"), &data.compute},
                                 std::pair{std::string_view("ceiling.memory.<name>"), &data.memory}}) {
      const std::optional<std::string> ceiling = placeholder_value(named(pattern), m.name);
      if (!ceiling) continue;
      if (auto v = finite_value(&m); v && *v > 0) {
        list->push_back({*ceiling, *v});
      } else {
        notes.push_back(m.name + ": " + (m.value ? "not a positive number" : "unavailable: " + m.unavailable));
      }
    }
    // A kernel ("<kernel>.intensity") or a profile layer ("layer.<layer>.intensity").
    const bool layer = falls_under(m.level, m.name, "layer.<layer>.intensity");
    if (!layer && !falls_under(m.level, m.name, "<kernel>.intensity")) continue;
    const std::string id = *placeholder_value(named(layer ? "layer.<layer>.intensity" : "<kernel>.intensity"), m.name);
    const std::string label = layer ? "layer." + id : id;  // as the chart labels it
    const std::string achieved_name = instance(layer ? "layer.<layer>.achieved" : "<kernel>.achieved", id);
    const std::string attainable_name = instance(layer ? "layer.<layer>.attainable" : "<kernel>.attainable", id);
    const Metric* achieved = a.find_metric(achieved_name);
    auto ai = finite_value(&m);
    auto perf = finite_value(achieved);
    if (!ai) {
      notes.push_back(label + ": intensity: unavailable: " + m.unavailable);
      continue;
    }
    // Without a measured time the roofline still predicts where the kernel or
    // layer can be at best: its attainable performance, drawn as predicted.
    bool predicted = false;
    if (!perf) {
      perf = finite_value(a.find_metric(attainable_name));
      predicted = perf.has_value();
      notes.push_back(label + ": achieved: " +
                      (achieved ? "unavailable: " + achieved->unavailable : std::string("not in this run")) +
                      (predicted ? "; drawn at its attainable performance (predicted)" : ""));
      if (!perf) continue;
    }
    RooflinePoint p{label, *ai, *perf, std::nullopt, std::nullopt, predicted};
    if (base) {
      p.baseline_intensity = finite_value(base->find_metric(m.name));
      p.baseline_achieved = finite_value(base->find_metric(predicted ? attainable_name : achieved_name));
      if (!p.baseline_intensity || !p.baseline_achieved) {
        p.baseline_intensity.reset();
        p.baseline_achieved.reset();
      }
    }
    data.points.push_back(p);
  }
  return data;
}

std::string render_html(const ReportInput& in) {
  const RunRecord& run = in.run;
  std::string title = fmt::format("harness run {}: {} on {}", run.id, run.scenario_name, run.rig);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    escape_xml(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n";
  out += fmt::format("<h1>{} <span class=\"badge {}\">{}</span></h1>\n", escape_xml(title),
                     run_status_name(run.status), run_status_name(run.status));
  out += fmt::format("<p class=\"meta\">{} run, started {}, ended {}{}</p>\n", escape_xml(run.origin),
                     escape_xml(run.started_at), escape_xml(run.ended_at.empty() ? "-" : run.ended_at),
                     in.baseline ? fmt::format("; compared with run {} ({})", in.baseline->id,
                                               escape_xml(in.baseline->started_at))
                                 : "");
  if (!run.reason.empty()) out += "<p class=\"unavailable\">" + escape_xml(run.reason) + "</p>\n";
  // Read top-down: the summary, then the charts, then the full tables.
  out += summary_html(in);
  RecordingOnce recording(run);
  for (const LevelRow* level : levels_in_report_order()) out += level_section(level->level, in, recording);
  out += "<h2>Verdicts</h2>\n" + verdict_table_html(run.analysis.verdicts);
  if (in.comparison) out += comparison_table_html(*in.comparison);
  if (!run.analysis.hints.empty()) {
    out += "<h2>Hints</h2>\n" + notes_html(run.analysis.hints);
  }
  out += figures_html(run.analysis);
  out += context_html(run);
  out += fmt::format("<footer>Rendered by harness {} from the stored run; no script, no network.</footer>\n",
                     HARNESS_VERSION);
  return out + "</body>\n</html>\n";
}

}  // namespace harness
