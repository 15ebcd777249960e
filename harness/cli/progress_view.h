// How `harness run` shows a run's progress on stderr. On a TTY: a live line
// per level (iterations done/planned, elapsed, ETA, samples, the load
// condition; levels 1 and 2: the step, its repetitions or iterations done
// of planned, elapsed, ETA), redrawn in place at a bounded rate and kept once the level is
// done. Elsewhere, or with --quiet: one plain line per milestone, which a
// log keeps readable.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/model/progress.h"
#include "probes/clock.h"
#include "reports/console.h"  // Palette

namespace harness {

enum class ColorChoice { automatic, always, never };
std::optional<ColorChoice> color_choice_from_name(std::string_view name);  // "auto", "always", "never"

// always and never are what they say; automatic: colour on a TTY unless
// NO_COLOR is set to a non-empty value (no-color.org). `no_color` is the
// variable's value (null when unset).
bool colour_wanted(ColorChoice choice, bool tty, const char* no_color);

// "0.4 s", "12 s", "2:05", "1:02:05".
std::string duration_text(double seconds);
// "950", "12.3k", "4.56M": counts as people glance at them.
std::string count_text(std::uint64_t n);

struct ProgressViewOptions {
  bool live = false;          // a TTY and not --quiet: redraw a line per level in place
  bool color = false;
  int columns = 80;           // the terminal's width: a live line is cut to fit, never wraps
  int terminal_fd = -1;       // set: the width is that terminal's at each redraw (columns unused)
  double min_redraw_s = 0.1;  // at most this often (10 redraws a second)
  // Redraw the live line's elapsed time about once a second even when no
  // event comes (a long step of levels 1 and 2, a warm-up). Off in tests,
  // which step a fake clock themselves.
  bool tick = false;
};

// The live line of the last event of a level (text only, cut to `columns`);
// `since_event_s` is how long ago the event came.
std::string live_progress_line(const ProgressEvent& last, double since_event_s, int columns, const Palette& palette);
// The milestone line of an event, or empty for an event that is no milestone
// (iterations).
std::string milestone_line(const ProgressEvent& event, const Palette& palette);

// The terminal's width on `fd` (TIOCGWINSZ), else $COLUMNS, else 80.
int terminal_columns(int fd);

std::unique_ptr<RunProgress> make_progress_view(std::ostream& out, Clock& clock, const ProgressViewOptions& options);

}  // namespace harness
