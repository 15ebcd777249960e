// SIGINT and SIGTERM as a stop request, for the whole of a command that
// stores a run: acquiring, analysing, storing and what follows. The handler
// only decides (one atomic compare-exchange) and wakes a watch thread through
// a pipe; that thread requests the stop, so the command's own thread
// (probes, analysis, the store) never has to poll for signals. One watch at
// a time per process.
//
// A command asks `reason()` between its phases and marks the run aborted
// when it is set; `seal()` ends the watch atomically, so a signal either
// arrived before the command's result was final (and makes it aborted, exit
// 3) or after (and is ignored).
#pragma once

#include <memory>
#include <stop_token>
#include <string>

namespace harness {

class SignalStop {
 public:
  SignalStop();  // watches from now on
  ~SignalStop();
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  // Requested when the first signal arrives.
  std::stop_token token() const;
  // "interrupted by SIGINT" once a signal arrived before seal(), else empty.
  std::string reason() const;
  // From now on signals change nothing; returns reason() as of this moment.
  // A later signal, until the process ends, is said on stderr ("harness:
  // interrupted by SIGINT after <final>: ignored"), not silently lost.
  std::string seal(const std::string& final = "the result was final");

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace harness
