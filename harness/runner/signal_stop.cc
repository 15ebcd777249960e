#include "harness/runner/signal_stop.h"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include <boost/asio.hpp>
#include <fmt/format.h>

namespace harness {

struct SignalStop::State {
  boost::asio::io_context io;
  boost::asio::signal_set signals{io, SIGINT, SIGTERM};
  std::stop_source stop;
  mutable std::mutex mutex;
  std::string reason;
  bool sealed = false;
  std::string final;
  std::thread loop;

  void wait() {
    signals.async_wait([this](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      {
        std::lock_guard lock(mutex);
        const char* abbrev = sigabbrev_np(signal);
        std::string what =
            abbrev ? fmt::format("interrupted by SIG{}", abbrev) : fmt::format("interrupted by signal {}", signal);
        if (sealed) {
          std::string line = fmt::format("harness: {} after {}: ignored\n", what, final);
          ssize_t ignored = ::write(2, line.data(), line.size());
          (void)ignored;
        } else if (reason.empty()) {
          reason = what;
          stop.request_stop();
        }
      }
      wait();  // a second signal is caught too: the command ends in order
    });
  }
};

SignalStop::SignalStop() : state_(std::make_unique<State>()) {
  state_->wait();
  state_->loop = std::thread([s = state_.get()] { s->io.run(); });
}

SignalStop::~SignalStop() {
  boost::asio::post(state_->io, [s = state_.get()] {
    boost::system::error_code ignored;
    s->signals.cancel(ignored);
  });
  state_->io.stop();
  state_->loop.join();
}

std::stop_token SignalStop::token() const { return state_->stop.get_token(); }

std::string SignalStop::reason() const {
  std::lock_guard lock(state_->mutex);
  return state_->reason;
}

std::string SignalStop::seal(const std::string& final) {
  std::lock_guard lock(state_->mutex);
  state_->sealed = true;
  state_->final = final;
  return state_->reason;
}

}  // namespace harness
