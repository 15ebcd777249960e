// Text for people at a terminal: a run with its metrics and verdicts, and
// the list of stored runs. Every name and text that comes from data is shown
// through terminal_safe (harness/base/terminal_text.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/run.h"

namespace harness {

// ANSI colour for terminal text (SGR sequences), or nothing when off.
struct Palette {
  bool on = false;
  std::string paint(std::string_view text, std::string_view sgr) const;  // sgr: "1;36", "32", ...
  std::string good(std::string_view t) const { return paint(t, "32"); }
  std::string bad(std::string_view t) const { return paint(t, "31"); }
  std::string warn(std::string_view t) const { return paint(t, "33"); }
  std::string level(std::string_view t) const { return paint(t, "1;36"); }
};

// What `harness run` and `replay` end with: the run's line, the verdict
// table and hints first, then the headline figures of each level that ran
// (one or two lines each, with provenance). Every figure: render_run_text.
std::string render_run_summary_text(const RunRecord& run, const Palette& palette = {});
// The headline figures of each level that has metrics: one or two lines of
// text (figures with provenance, or why the level is unavailable). The HTML
// report's summary shows the same.
struct LevelHeadline {
  Level level = Level::roofline;
  std::vector<std::string> lines;
};
std::vector<LevelHeadline> level_headlines(const Analysis& analysis);
// level_headlines as terminal lines: "level 4 latency   p50 ...", the second line indented.
std::vector<std::string> headline_lines(const RunRecord& run);

// Metrics grouped by level, each with value, unit and provenance; then the
// verdict table. Unavailable metrics show their reason.
std::string render_run_text(const RunRecord& run);
// render_run_text without the verdict table and hints: `harness run` prints
// these first and ends with the verdicts and the report's path.
std::string render_run_details_text(const RunRecord& run);
std::string render_verdicts_and_hints_text(const RunRecord& run, const Palette& palette = {});
// A metric's value as people read it: "31.2 GB/s", "memory", "unavailable: <reason>".
std::string metric_value_text(const Metric& m);
std::string render_verdict_table(const std::vector<Verdict>& verdicts, const Palette& palette = {});
std::string render_run_list_text(const std::vector<RunSummary>& runs);
// "run 7", or "runs 3, 4, 5" for several (a baseline set).
std::string run_ids_text(const std::vector<std::int64_t>& ids);

}  // namespace harness
