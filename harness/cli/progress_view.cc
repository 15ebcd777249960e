#include "harness/cli/progress_view.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "harness/base/terminal_text.h"

namespace harness {

std::optional<ColorChoice> color_choice_from_name(std::string_view name) {
  if (name == "auto") return ColorChoice::automatic;
  if (name == "always") return ColorChoice::always;
  if (name == "never") return ColorChoice::never;
  return std::nullopt;
}

bool colour_wanted(ColorChoice choice, bool tty, const char* no_color) {
  switch (choice) {
    case ColorChoice::always: return true;
    case ColorChoice::never: return false;
    case ColorChoice::automatic: break;
  }
  return tty && (no_color == nullptr || no_color[0] == '\0');
}

std::string duration_text(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  if (s < 10) return fmt::format("{:.1f} s", s);
  if (s < 60) return fmt::format("{:.0f} s", std::floor(s));
  const auto total = static_cast<long long>(s);
  if (total < 3600) return fmt::format("{}:{:02}", total / 60, total % 60);
  return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
}

std::string count_text(std::uint64_t n) {
  if (n < 10000) return std::to_string(n);
  constexpr const char* kSuffix[] = {"k", "M", "G", "T", "P"};
  double v = static_cast<double>(n) / 1000;
  std::size_t i = 0;
  // Move up a unit once three significant digits would round to 1000.
  while (v >= 999.5 && i + 1 < std::size(kSuffix)) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.3g}{}", v, kSuffix[i]);
}

namespace {

std::string level_tag(Level level) { return fmt::format("level {} {}", static_cast<int>(level), level_name(level)); }

std::string condition_text(const ProgressEvent& e) {
  std::string s = fmt::format("condition {}/{}", e.condition_index, e.condition_count);
  if (!e.text.empty()) s += ", " + e.text;
  return s;
}

std::string samples_text(const ProgressEvent& e) {
  std::string s;
  if (e.samples > 0) s += fmt::format("  {} samples", count_text(static_cast<std::uint64_t>(e.samples)));
  if (e.analyzer_samples > 0) s += fmt::format("  analyzer {} samples", count_text(e.analyzer_samples));
  return s;
}

// Cuts plain text to `width` columns (the view writes ASCII only; a name
// from the scenario may not be, and is then cut by bytes, never mid-sequence).
std::string fit(std::string s, std::size_t width) {
  if (s.size() <= width) return s;
  std::size_t at = width;
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  s.resize(at);
  return s;
}

// The event's words come from the scenario and the device (a condition's
// name, a kernel's, a note): shown escaped (terminal_text.h).
ProgressEvent terminal_safe_event(const ProgressEvent& event) {
  ProgressEvent e = event;
  e.text = terminal_safe(e.text);
  e.condition = terminal_safe(e.condition);
  e.counted = terminal_safe(e.counted);
  return e;
}

}  // namespace

std::string live_progress_line(const ProgressEvent& event, double since_event_s, int columns, const Palette& palette) {
  const ProgressEvent e = terminal_safe_event(event);
  const std::string tag = level_tag(e.level);
  const double elapsed = e.elapsed_s + std::max(since_event_s, 0.0);
  std::string rest;
  std::string status;  // painted apart: "done" or "stopped"
  bool good = true;
  switch (e.kind) {
    case ProgressEvent::Kind::note: return fit(e.text, static_cast<std::size_t>(std::max(columns - 1, 1)));
    case ProgressEvent::Kind::level_started: rest = fmt::format("  {}  {}", e.text, duration_text(elapsed)); break;
    case ProgressEvent::Kind::condition_started:
      rest = fmt::format("  {}  load settling, warm-up  {}{}", condition_text(e), duration_text(elapsed), samples_text(e));
      break;
    case ProgressEvent::Kind::iterations:
    case ProgressEvent::Kind::condition_finished: {
      std::string done = e.done <= e.planned ? fmt::format("{}/{} iterations", e.done, e.planned)
                                             : fmt::format("{} iterations", e.done);
      std::string eta;
      if (e.kind == ProgressEvent::Kind::iterations) {
        double left = estimated_remaining_s(e);
        if (left >= 0) eta = "  ETA " + duration_text(std::max(left - since_event_s, 0.0));
      }
      rest = fmt::format("  {}  {}  {}{}{}", condition_text(e), done, duration_text(elapsed), eta, samples_text(e));
      break;
    }
    case ProgressEvent::Kind::step: {
      // "step 3/9 kernel gemm  2/5 repetitions  4.1 s  ETA 9.0 s"
      std::string step = e.step_count > 1 ? fmt::format("  step {}/{}", e.step_index, e.step_count) : "";
      if (!e.text.empty()) step += "  " + e.text;
      std::string done = e.planned > 0 ? fmt::format("{}/{} {}", e.done, e.planned, e.counted)
                                       : fmt::format("{} {}", e.done, e.counted);
      std::string eta;
      if (double left = estimated_remaining_s(e); left >= 0)
        eta = "  ETA " + duration_text(std::max(left - std::max(since_event_s, 0.0), 0.0));
      rest = fmt::format("{}  {}  {}{}", step, done, duration_text(elapsed), eta);
      break;
    }
    case ProgressEvent::Kind::level_finished:
      good = e.failure.empty();
      status = good ? "done" : "stopped";
      rest = fmt::format(" {} {}{}", good ? "in" : "after", duration_text(e.elapsed_s), samples_text(e));
      break;
  }
  const std::size_t width = static_cast<std::size_t>(std::max(columns - 1, 1));  // the last column would wrap on some terminals
  std::string plain = tag + (status.empty() ? "" : "  " + status) + rest;
  plain = fit(plain, width);
  // Paint what is left of the tag and the status word.
  std::string out = palette.level(plain.substr(0, std::min(tag.size(), plain.size())));
  std::size_t at = tag.size();
  if (!status.empty() && plain.size() > at + 2) {
    out += "  ";
    std::string word = plain.substr(at + 2, std::min(status.size(), plain.size() - at - 2));
    out += good ? palette.good(word) : palette.bad(word);
    at += 2 + word.size();
  }
  if (plain.size() > at) out += plain.substr(at);
  return out;
}

std::string milestone_line(const ProgressEvent& event, const Palette& palette) {
  const ProgressEvent e = terminal_safe_event(event);
  const int n = static_cast<int>(e.level);
  switch (e.kind) {
    case ProgressEvent::Kind::note: return "harness: " + e.text;
    case ProgressEvent::Kind::level_started:
      return fmt::format("harness: level {}: {} ({})", n, level_name(e.level), e.text);
    case ProgressEvent::Kind::condition_started: return fmt::format("harness: level {}: {}", n, condition_text(e));
    case ProgressEvent::Kind::iterations:
    case ProgressEvent::Kind::step: return {};
    case ProgressEvent::Kind::condition_finished:
      return fmt::format("harness: level {}: {}: {} iterations in {}", n, condition_text(e), e.done,
                         duration_text(e.measuring_s));
    case ProgressEvent::Kind::level_finished: {
      std::string line = fmt::format("harness: level {}: {} ", n, level_name(e.level));
      if (!e.failure.empty()) return line + palette.bad("stopped") + " after " + duration_text(e.elapsed_s);
      line += palette.good("done") + " in " + duration_text(e.elapsed_s);
      if (e.samples > 0) line += fmt::format(", {} samples", e.samples);
      return line;
    }
  }
  return {};
}

namespace {

class MilestoneView final : public RunProgress {
 public:
  MilestoneView(std::ostream& out, Palette palette) : out_(out), palette_(palette) {}
  void report(const ProgressEvent& e) override {
    std::string line = milestone_line(e, palette_);
    if (line.empty()) return;
    std::lock_guard lock(mutex_);
    out_ << line << "\n" << std::flush;
  }

 private:
  std::ostream& out_;
  Palette palette_;
  std::mutex mutex_;
};

// One line per level, redrawn in place ("\r" and erase-line) while the level
// runs and left standing once it is done; notes go above it.
class LiveView final : public RunProgress {
 public:
  LiveView(std::ostream& out, Clock& clock, const ProgressViewOptions& o)
      : out_(out), clock_(clock), options_(o), palette_{o.color} {
    if (o.tick) ticker_ = std::thread([this] { tick(); });
  }
  ~LiveView() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      if (active_) out_ << "\n" << std::flush;  // leave the last line standing
      active_ = false;
    }
    woken_.notify_all();
    if (ticker_.joinable()) ticker_.join();
  }

  void report(const ProgressEvent& e) override {
    std::lock_guard lock(mutex_);
    const std::uint64_t now = clock_.now_ns();
    if (e.kind == ProgressEvent::Kind::note) {
      if (active_) out_ << "\r\x1b[K";
      out_ << milestone_line(e, palette_) << "\n";
      if (active_) draw(now);
      out_ << std::flush;
      return;
    }
    last_ = e;
    last_at_ns_ = now;
    switch (e.kind) {
      case ProgressEvent::Kind::iterations:
      case ProgressEvent::Kind::step:
        // Bounded: batches and steps come about every 250 ms, but a fast
        // device or many conditions must not flood a slow terminal.
        if (drawn_ && static_cast<double>(now - drawn_at_ns_) * 1e-9 < options_.min_redraw_s) return;
        break;
      case ProgressEvent::Kind::level_finished:
        draw(now);
        out_ << "\n" << std::flush;
        active_ = false;
        drawn_ = false;
        return;
      default: break;
    }
    active_ = true;
    draw(now);
    out_ << std::flush;
  }

 private:
  void draw(std::uint64_t now) {
    const double since = static_cast<double>(now - std::min(now, last_at_ns_)) * 1e-9;
    // The width read again at each redraw (one ioctl): a terminal widened or
    // narrowed during a long level gets lines of its new width.
    const int columns = options_.terminal_fd >= 0 ? terminal_columns(options_.terminal_fd) : options_.columns;
    out_ << "\r\x1b[K" << live_progress_line(last_, since, columns, palette_);
    drawn_ = true;
    drawn_at_ns_ = now;
  }

  // About once a second: the elapsed time and ETA move on while the device
  // is silent (a long step of level 1 or 2, a long warm-up).
  void tick() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      woken_.wait_for(lock, std::chrono::milliseconds(250));
      if (stopping_ || !active_) continue;
      const std::uint64_t now = clock_.now_ns();
      if (static_cast<double>(now - drawn_at_ns_) * 1e-9 >= 1.0) {
        draw(now);
        out_ << std::flush;
      }
    }
  }

  std::ostream& out_;
  Clock& clock_;
  ProgressViewOptions options_;
  Palette palette_;
  std::mutex mutex_;
  std::condition_variable woken_;
  bool stopping_ = false;
  bool active_ = false;  // a live line is on screen, the cursor at its end
  bool drawn_ = false;
  std::uint64_t drawn_at_ns_ = 0, last_at_ns_ = 0;
  ProgressEvent last_;
  std::thread ticker_;
};

}  // namespace

int terminal_columns(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 80;
}

std::unique_ptr<RunProgress> make_progress_view(std::ostream& out, Clock& clock, const ProgressViewOptions& options) {
  if (options.live) return std::make_unique<LiveView>(out, clock, options);
  return std::make_unique<MilestoneView>(out, Palette{options.color});
}

}  // namespace harness
