// `harness run` on a real pseudo-terminal (forkpty): the live progress line
// redrawn in place, colour unless NO_COLOR, plain milestones with --quiet,
// and the compact summary at the end.
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/cli/progress_view.h"
#include "tests/support/host_scenario.h"
#include "tests/support/run_harness.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct PtyResult {
  std::string text;  // everything the terminal received (stdout and stderr)
  int exit_code = -1;
};

// Runs the harness with its stdin, stdout and stderr on a new pseudo-terminal
// 200 columns wide, with `no_color` as NO_COLOR (null: unset).
PtyResult run_on_pty(const std::vector<std::string>& args, const char* no_color) {
  termios raw{};
  cfmakeraw(&raw);  // no "\n" -> "\r\n" translation: the bytes as written
  winsize size{};
  size.ws_row = 50;
  size.ws_col = 200;
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, &raw, &size);
  if (pid < 0) return {"forkpty failed: " + std::string(std::strerror(errno)), -1};
  if (pid == 0) {
    if (no_color) ::setenv("NO_COLOR", no_color, 1);
    else ::unsetenv("NO_COLOR");
    testing_support::exec_harness(args);
  }
  PtyResult r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child has closed the terminal
    r.text.append(buf, static_cast<std::size_t>(n));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Why no pseudo-terminal can be opened here (a container without /dev/pts,
// a sandbox), or "" when one can.
std::string pty_unavailable() {
  int master = -1, slave = -1;
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0)
    return std::string("no pseudo-terminal can be opened: ") + std::strerror(errno);
  ::close(master);
  ::close(slave);
  return "";
}

bool has_sgr(const std::string& s) { return std::regex_search(s, std::regex("\x1b\\[[0-9;]*m")); }

class Terminal : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = pty_unavailable(); !why.empty()) GTEST_SKIP() << why;
    dir_ = testing_support::fresh_test_dir("harness-terminal");
    // A second of iterations (about a millisecond each): the device sends a batch every 250 ms, so the line is redrawn several times.
    std::ofstream(dir_ / "s.toml") << testing_support::host_scenario("tty") << R"(elements = 1048576
[latency]
iterations = 20
warmup = 2
min_duration = "1.2 s"
[latency.expect]
p95_over_p50_max = 1000.0
)";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::vector<std::string> run_args(std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {"--db", (dir_ / "runs.sqlite").string(), "run", (dir_ / "s.toml").string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  fs::path dir_;
};

TEST_F(Terminal, ALiveLineInColourThenTheCompactSummary) {
  PtyResult r = run_on_pty(run_args(), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.text;
  // Redrawn in place: carriage return and erase-line, the level's tag painted.
  const std::string live = "\r\x1b[K\x1b[1;36mlevel 4 latency\x1b[0m  condition 1/1, without load  ";
  std::size_t redraws = 0;
  for (std::size_t at = 0; (at = r.text.find(live, at)) != std::string::npos; ++at) ++redraws;
  EXPECT_GE(redraws, 3u) << r.text;
  EXPECT_THAT(r.text, ::testing::ContainsRegex("iterations  [0-9.]+ s  ETA [0-9.]+ s  [0-9]+ samples"));
  EXPECT_THAT(r.text, HasSubstr("\x1b[1;36mlevel 4 latency\x1b[0m  \x1b[32mdone\x1b[0m in "));
  // The milestones of a log are not printed on a terminal.
  EXPECT_THAT(r.text, Not(HasSubstr("harness: level 4: latency (iterations on the device)")));
  // The summary: verdicts painted, the headline figures, where it is stored.
  EXPECT_THAT(r.text, HasSubstr("latency.expect.p95_over_p50_max <= 1000"));
  EXPECT_THAT(r.text, HasSubstr("\x1b[32mpass\x1b[0m\n"));
  EXPECT_THAT(r.text, ::testing::ContainsRegex("\nlevel 4 latency +p50 [0-9.]+ [mun]?s, p95 "));
  EXPECT_THAT(r.text, HasSubstr("stored as run 1 in " + (dir_ / "runs.sqlite").string() + "; every metric: harness show 1\n"));
}

TEST_F(Terminal, NoColorKeepsTheLiveLineAndDropsEveryColour) {
  PtyResult r = run_on_pty(run_args(), "1");
  ASSERT_EQ(r.exit_code, 0) << r.text;
  EXPECT_THAT(r.text, HasSubstr("\r\x1b[Klevel 4 latency  condition 1/1, without load  "));
  EXPECT_FALSE(has_sgr(r.text)) << r.text;
  // An explicit --color=always wins over NO_COLOR (no-color.org).
  PtyResult always = run_on_pty(run_args({"--color=always"}), "1");
  ASSERT_EQ(always.exit_code, 0) << always.text;
  EXPECT_TRUE(has_sgr(always.text));
}

TEST_F(Terminal, QuietPrintsPlainMilestonesEvenOnATerminal) {
  PtyResult r = run_on_pty(run_args({"--quiet", "--color=never"}), nullptr);
  ASSERT_EQ(r.exit_code, 0) << r.text;
  EXPECT_EQ(r.text.find('\r'), std::string::npos) << r.text;
  EXPECT_THAT(r.text, HasSubstr("harness: level 4: latency (iterations on the device)\n"
                                "harness: level 4: condition 1/1, without load\n"
                                "harness: level 4: condition 1/1, without load: "));
  EXPECT_THAT(r.text, ::testing::ContainsRegex("harness: level 4: latency done in [0-9.]+ s, [0-9]+ samples\n"));
  EXPECT_FALSE(has_sgr(r.text));
}

// Level 1 runs on the device (a child agent): its kernel's repetitions come
// back as steps and move its live line, as level 4's iterations do.
TEST_F(Terminal, LevelOnesRepetitionsMoveItsLiveLine) {
  // A thousand runs of a kernel of about a millisecond: the agent sends a step every 250 ms.
  std::ofstream(dir_ / "r.toml") << testing_support::host_scenario("tty-roofline") << R"(elements = 1024
[roofline]
host_benchmarks = false
repetitions = 1000
[[roofline.kernels]]
name = "va"
builtin = "vector_add"
elements = 1048576
)";
  PtyResult r = run_on_pty({"--db", (dir_ / "runs.sqlite").string(), "run", (dir_ / "r.toml").string()}, "1");
  ASSERT_EQ(r.exit_code, 0) << r.text;
  EXPECT_THAT(r.text, HasSubstr("\r\x1b[Klevel 1 roofline  ceilings and kernels on the device  "));
  // Level 1 takes its repetitions in rounds, one of every measurement each: a round is a step.
  EXPECT_THAT(r.text, ::testing::ContainsRegex(
                          "\r\x1b\\[Klevel 1 roofline  step [0-9]+/1000  kernel va  [01]/1 measurements this round  "
                          "[0-9.]+ s"));
  EXPECT_THAT(r.text, ::testing::ContainsRegex("\r\x1b\\[Klevel 1 roofline  step [1-9][0-9]*/1000  kernel va  [01]/1 "
                                               "measurements this round  [0-9.]+ s  ETA [0-9.:]+ s"));
  EXPECT_THAT(r.text, HasSubstr("\r\x1b[Klevel 1 roofline  done in "));
}

// The live line takes the terminal's width, read again when it changes: on
// a terminal 150 columns wide a line is not cut at 80, and once the
// terminal is narrowed to 60 the next redraw fits 60.
TEST(TerminalWidth, TheLiveLineFollowsTheTerminalsWidth) {
  if (std::string why = pty_unavailable(); !why.empty()) GTEST_SKIP() << why;
  int master = -1, slave = -1;
  winsize size{};
  size.ws_row = 50;
  size.ws_col = 150;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, &size), 0);
  ProgressViewOptions o;
  o.live = true;
  o.terminal_fd = slave;
  o.min_redraw_s = 0;
  FakeClock clock;
  std::ostringstream out;
  {
    std::unique_ptr<RunProgress> view = make_progress_view(out, clock, o);
    ProgressEvent e;
    e.level = Level::roofline;
    e.kind = ProgressEvent::Kind::level_started;
    e.text = "ceilings and kernels on the device, with a description long enough to pass eighty columns";
    view->report(e);
    size.ws_col = 60;
    ASSERT_EQ(::ioctl(master, TIOCSWINSZ, &size), 0);
    view->report(e);
  }
  ::close(master);
  ::close(slave);
  std::vector<std::string> lines;
  std::string text = out.str();
  for (std::size_t at = 0; (at = text.find("\r\x1b[K", at)) != std::string::npos;) {
    at += 4;
    std::size_t end = text.find_first_of("\r\n", at);
    lines.push_back(text.substr(at, end - at));
  }
  ASSERT_EQ(lines.size(), 2u) << text;
  EXPECT_GT(lines[0].size(), 80u) << lines[0];
  EXPECT_LE(lines[0].size(), 149u);
  EXPECT_LE(lines[1].size(), 59u) << lines[1];
}

}  // namespace
}  // namespace harness
