#include "harness/runner/signal_stop.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace harness {
namespace {

// One watch at a time (a command has one); the signal handler reaches it
// through these globals, touching only what is async-signal-safe.
//   state 0: watching, no signal yet; > 0: the first signal's number;
//   -1: sealed with no signal. One compare-exchange decides, in the handler
//   or in seal(), whether a signal came before the result was final.
std::atomic<int> g_state{0};
int g_wake[2] = {-1, -1};  // the handler wakes the watch thread through this pipe
char g_late_int[300], g_late_term[300];  // prepared by seal(): what a late signal says

extern "C" void on_signal(int signal) {
  const int saved_errno = errno;
  int expected = 0;
  if (g_state.compare_exchange_strong(expected, signal)) {
    const char byte = 1;
    ssize_t ignored = ::write(g_wake[1], &byte, 1);
    (void)ignored;
  } else if (expected == -1) {
    const char* line = signal == SIGINT ? g_late_int : g_late_term;
    ssize_t ignored = ::write(2, line, std::strlen(line));
    (void)ignored;
  }
  errno = saved_errno;
}

std::string reason_of(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? fmt::format("interrupted by SIG{}", abbrev) : fmt::format("interrupted by signal {}", signal);
}

}  // namespace

struct SignalStop::State {
  std::stop_source stop;
  std::thread watch;
  struct sigaction previous_int {}, previous_term {};
};

SignalStop::SignalStop() : state_(std::make_unique<State>()) {
  if (g_wake[1] >= 0) ::close(g_wake[1]);  // left open by an earlier sealed watch
  g_state.store(0);
  if (::pipe2(g_wake, O_CLOEXEC) != 0) g_wake[0] = g_wake[1] = -1;
  // The thread turns the first signal into a stop request: request_stop()
  // runs callbacks, which a signal handler must not.
  state_->watch = std::thread([s = state_.get(), fd = g_wake[0]] {
    char byte = 0;
    while (fd >= 0) {
      ssize_t n = ::read(fd, &byte, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || byte == 0) break;  // 0: the watch ends
      s->stop.request_stop();
    }
  });
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &state_->previous_int);
  ::sigaction(SIGTERM, &action, &state_->previous_term);
}

SignalStop::~SignalStop() {
  // Sealed or signalled, the handler stays until the process ends: a later
  // signal says it came too late (or, after the first, changes nothing)
  // instead of killing a command whose result is final.
  const bool sealed = g_state.load() != 0;
  if (!sealed) {
    ::sigaction(SIGINT, &state_->previous_int, nullptr);
    ::sigaction(SIGTERM, &state_->previous_term, nullptr);
  }
  if (g_wake[1] >= 0) {
    const char quit = 0;
    ssize_t ignored = ::write(g_wake[1], &quit, 1);
    (void)ignored;
  }
  state_->watch.join();
  if (!sealed) {
    ::close(g_wake[0]);
    ::close(g_wake[1]);
    g_wake[0] = g_wake[1] = -1;
  } else {
    ::close(g_wake[0]);  // the write end stays for the handler; a write there fails harmlessly
    g_wake[0] = -1;
  }
}

std::stop_token SignalStop::token() const { return state_->stop.get_token(); }

std::string SignalStop::reason() const {
  const int s = g_state.load();
  return s > 0 ? reason_of(s) : std::string();
}

std::string SignalStop::seal(const std::string& final) {
  for (auto [buffer, name] : {std::pair{g_late_int, "SIGINT"}, std::pair{g_late_term, "SIGTERM"}}) {
    std::string line = fmt::format("harness: interrupted by {} after {}: ignored\n", name, final);
    std::snprintf(buffer, sizeof g_late_int, "%s", line.c_str());
  }
  int expected = 0;
  if (g_state.compare_exchange_strong(expected, -1)) return "";
  return expected > 0 ? reason_of(expected) : std::string();
}

}  // namespace harness
