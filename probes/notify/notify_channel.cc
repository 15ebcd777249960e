#include "probes/notify/notify_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>

#include <curl/curl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "probes/process.h"

namespace harness {
namespace {

using Clock = std::chrono::steady_clock;

std::string tail(const std::string& s, std::size_t n = 400) { return s.size() <= n ? s : s.substr(s.size() - n); }

class CommandChannel final : public NotifyChannel {
 public:
  CommandChannel(std::vector<std::string> argv, double timeout_s) : argv_(std::move(argv)), timeout_s_(timeout_s) {}
  std::string describe() const override { return fmt::format("command {}", fmt::join(argv_, " ")); }

  Status send(const Notification& n) override {
    Result<std::string> exe = find_executable(argv_.front());
    if (!exe) return exe.error();
    // A socket, not a pipe, for stdin: a notifier that exits without
    // reading gets EPIPE on send (MSG_NOSIGNAL), not SIGPIPE on us.
    int in[2], out[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) return Error::infra(std::strerror(errno));
    if (::pipe2(out, O_CLOEXEC) != 0) {
      ::close(in[0]);
      ::close(in[1]);
      return Error::infra(std::strerror(errno));
    }
    // Everything the child needs is made before fork: between fork and exec
    // a threaded process may only make async-signal-safe calls.
    std::vector<char*> argv;
    for (const std::string& a : argv_) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> env_text = {"HARNESS_NOTIFY_SUMMARY=" + n.summary, "HARNESS_NOTIFY_OUTCOME=" + n.outcome};
    for (char** e = environ; *e; ++e)
      if (!std::string_view(*e).starts_with("HARNESS_NOTIFY_")) env_text.emplace_back(*e);
    std::vector<char*> env;
    for (std::string& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      ::dup2(in[1], 0);
      ::dup2(out[1], 1);
      ::dup2(out[1], 2);
      ::execve(exe->c_str(), argv.data(), env.data());
      ::_exit(127);
    }
    ::close(in[1]);
    ::close(out[1]);
    if (pid < 0) {
      ::close(in[0]);
      ::close(out[0]);
      return Error::infra(fmt::format("{}: cannot start: {}", describe(), std::strerror(errno)));
    }
    ::setpgid(pid, pid);
    return finish(pid, in[0], out[0], n.json);
  }

 private:
  // Feeds stdin, keeps the output's tail and waits for the end, all under
  // one deadline; past it the whole process group is killed.
  Status finish(pid_t pid, int in, int out, const std::string& json) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
    ::fcntl(in, F_SETFL, O_NONBLOCK);
    std::size_t sent = 0;
    std::string output;
    int status = 0;
    bool exited = false, timed_out = false;
    while (!exited) {
      if (in >= 0 && sent == json.size()) {
        ::close(in);  // end of the JSON: EOF on the notifier's stdin
        in = -1;
      }
      pollfd fds[2] = {{out, POLLIN, 0}, {in, POLLOUT, 0}};
      ::poll(fds, in >= 0 ? 2 : 1, 20);
      if (in >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
        ssize_t w = ::send(in, json.data() + sent, json.size() - sent, MSG_NOSIGNAL);
        if (w > 0) sent += static_cast<std::size_t>(w);
        else if (w < 0 && errno != EAGAIN) sent = json.size();  // it closed its stdin: nothing more to give
      }
      if (fds[0].revents & (POLLIN | POLLHUP)) {
        char buf[4096];
        ssize_t r = ::read(out, buf, sizeof buf);
        if (r > 0) output = tail(output + std::string(buf, static_cast<std::size_t>(r)), 4096);
      }
      exited = ::waitpid(pid, &status, WNOHANG) == pid;
      if (!exited && Clock::now() >= deadline) {
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        exited = timed_out = true;
      }
    }
    if (in >= 0) ::close(in);
    ::close(out);
    if (timed_out) return Error::infra(fmt::format("{}: timed out after {:g} s and was killed", describe(), timeout_s_));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ok();
    std::string end = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                          : fmt::format("exit status {}", WEXITSTATUS(status));
    return Error::infra(fmt::format("{}: {}{}", describe(), end, output.empty() ? "" : ": " + tail(output)));
  }

  std::vector<std::string> argv_;
  double timeout_s_;
};

std::size_t keep_answer(char* data, std::size_t size, std::size_t count, void* user) {
  std::string& answer = *static_cast<std::string*>(user);
  if (answer.size() < 4096) answer.append(data, std::min(size * count, 4096 - answer.size()));
  return size * count;
}

class WebhookChannel final : public NotifyChannel {
 public:
  WebhookChannel(std::string url, double timeout_s, int retries) : url_(std::move(url)), timeout_s_(timeout_s), retries_(retries) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }
  std::string describe() const override { return "webhook " + url_; }

  Status send(const Notification& n) override {
    Status last = ok();
    for (int attempt = 0; attempt <= retries_; ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(500 * attempt));
      bool worth_retrying = false;
      last = post(n.json, worth_retrying);
      if (last || !worth_retrying) break;
    }
    if (!last && retries_ > 0) return last.error().within(fmt::format("{} ({} attempts)", describe(), retries_ + 1));
    if (!last) return last.error().within(describe());
    return ok();
  }

 private:
  Status post(const std::string& json, bool& worth_retrying) {
    CURL* curl = curl_easy_init();
    if (!curl) return Error::infra("libcurl could not start a transfer");
    std::string answer;
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    const std::string agent = std::string("harness/") + HARNESS_VERSION;
    const long timeout_ms = static_cast<long>(timeout_s_ * 1000);
    curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, agent.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(json.size()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &keep_answer);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
    CURLcode code = curl_easy_perform(curl);
    long http = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (code != CURLE_OK) {
      worth_retrying = true;
      return Error::infra(curl_easy_strerror(code));
    }
    if (http >= 200 && http < 300) return ok();
    worth_retrying = http >= 500 || http == 429;
    return Error::infra(fmt::format("HTTP {}{}", http, answer.empty() ? "" : ": " + tail(answer, 200)));
  }

  std::string url_;
  double timeout_s_;
  int retries_;
};

}  // namespace

std::unique_ptr<NotifyChannel> command_channel(std::vector<std::string> argv, double timeout_s) {
  return std::make_unique<CommandChannel>(std::move(argv), timeout_s);
}

std::unique_ptr<NotifyChannel> webhook_channel(std::string url, double timeout_s, int retries) {
  return std::make_unique<WebhookChannel>(std::move(url), timeout_s, retries);
}

}  // namespace harness
