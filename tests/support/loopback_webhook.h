// A webhook server on loopback for tests: answers each request with the
// next status of a list (the last one repeats) and keeps every request as it
// came. At most 20 requests: a test sends a few.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/loopback_port.h"

namespace harness::testing_support {

class LoopbackWebhook {
 public:
  explicit LoopbackWebhook(std::vector<int> statuses) : statuses_(std::move(statuses)) {
    fd_ = listen_on_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }
  ~LoopbackWebhook() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<std::string> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void serve() {
    for (std::size_t i = 0; !stop_ && i < 20; ++i) {  // bounded: a test sends a few
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string request = read_request(c);
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(request);
      }
      const int status = statuses_[std::min(i, statuses_.size() - 1)];
      std::string answer = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
      (void)::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(c);
    }
  }
  static std::string read_request(int c) {
    std::string r;
    char buf[4096];
    std::size_t want = std::string::npos;
    while (want == std::string::npos || r.size() < want) {
      ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      r.append(buf, static_cast<std::size_t>(n));
      std::size_t head = r.find("\r\n\r\n");
      std::size_t cl = r.find("Content-Length: ");
      if (head != std::string::npos && cl != std::string::npos && want == std::string::npos)
        want = head + 4 + std::stoul(r.substr(cl + 16));
    }
    return r;
  }
  std::vector<int> statuses_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> requests_;
};

}  // namespace harness::testing_support
