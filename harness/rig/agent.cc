#include "harness/rig/agent.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include <fmt/format.h>

#include "harness/base/bounded_json.h"
#include "harness/base/sha256.h"
#include "harness/rig/local_device.h"
#include "harness/levels/stability.h"
#include "harness/rig/protocol.h"

namespace harness {
namespace {

using nlohmann::json;

int g_signal_pipe[2] = {-1, -1};

// The heartbeat period a host may ask for.
constexpr double kMinHeartbeatS = 0.05, kMaxHeartbeatS = 60;

void on_stop_signal(int sig) {
  unsigned char b = static_cast<unsigned char>(sig);
  [[maybe_unused]] ssize_t n = ::write(g_signal_pipe[1], &b, 1);
}
void on_sigpipe(int) {}  // a write to a closed link fails with EPIPE instead

class OffsetClock final : public Clock {
 public:
  explicit OffsetClock(std::int64_t offset_ns) : offset_(offset_ns) {}
  std::uint64_t now_ns() override { return static_cast<std::uint64_t>(static_cast<std::int64_t>(mono_.now_ns()) + offset_); }

 private:
  MonotonicClock mono_;
  std::int64_t offset_;
};

class Agent {
  // A level's steps (levels 1 and 2) as "step" events of the op in progress.
  class StepEvents final : public RunProgress {
   public:
    StepEvents(Agent& agent, const json& id) : agent_(agent), id_(id) {}
    void report(const ProgressEvent& e) override { agent_.write(protocol::encode_step(id_, e)); }

   private:
    Agent& agent_;
    const json& id_;
  };

 public:
  explicit Agent(const AgentOptions& o) : options_(o), clock_(o.clock_offset_ns), heartbeat_s_(o.heartbeat_s) {}

  int serve() {
    heartbeat_ = std::thread([this] { heartbeat_loop(); });
    std::string buffer;
    char chunk[65536];
    int status = 0;
    bool bye = false;
    while (!link_lost_ && !bye) {
      pollfd fds[2] = {{options_.in_fd, POLLIN, 0}, {g_signal_pipe[0], POLLIN, 0}};
      int n = ::poll(fds, 2, 200);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      if (fds[1].revents & POLLIN) break;  // SIGTERM, SIGINT, SIGHUP
      if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        reap_worker_if_done();
        continue;
      }
      ssize_t got = ::read(options_.in_fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;  // the link ended
      buffer.append(chunk, static_cast<std::size_t>(got));
      std::size_t start = 0;
      for (std::size_t nl; !bye && (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
        bye = !handle_line(buffer.substr(start, nl - start));
      }
      buffer.erase(0, start);
      if (buffer.size() > protocol::kMaxMessageBytes) {
        write({{"ok", false}, {"error", "agent protocol: a request line over the size limit"}, {"exit", 2}});
        status = 2;
        break;
      }
    }
    shutdown();
    return status;
  }

 private:
  // false: the host said bye.
  bool handle_line(const std::string& line) {
    if (line.empty()) return true;
    Result<json> parsed = protocol::parse_line(line);
    if (!parsed) {
      write({{"ok", false}, {"error", parsed.error().message}, {"exit", 2}});
      return true;
    }
    const json& req = *parsed;
    const json id = req.contains("id") ? req["id"] : json();
    if (!req.contains("op") || !req["op"].is_string()) {
      write({{"id", id}, {"ok", false}, {"error", "agent protocol: a request needs an \"op\" string"}, {"exit", 2}});
      return true;
    }
    const std::string op = req["op"].get<std::string>();
    if (op == "time") {
      write({{"id", id}, {"ok", true}, {"result", {{"t_ns", clock_.now_ns()}}}});
      return true;
    }
    if (op == "cancel") {
      std::lock_guard lock(worker_mutex_);
      if (op_stop_) op_stop_->request_stop();
      write({{"id", id}, {"ok", true}, {"result", json::object()}});
      return true;
    }
    if (op == "bye") {
      shutdown();
      write({{"id", id}, {"ok", true}, {"result", json::object()}});
      return false;
    }
    reap_worker_if_done();
    std::lock_guard lock(worker_mutex_);
    if (worker_.joinable()) {
      write({{"id", id}, {"ok", false}, {"error", fmt::format("agent busy: '{}' arrived while another op runs", op)},
             {"exit", 3}});
      return true;
    }
    op_stop_.emplace();
    worker_done_ = false;
    worker_ = std::thread([this, req, id, op, token = op_stop_->get_token()] {
      Result<json> r = dispatch(op, req, id, token);
      // Done before the reply goes out: the host may send its next op the
      // moment it reads the reply, and that op must find the agent free
      // (the reader then joins this thread, which only has the write left).
      worker_done_ = true;
      if (r) {
        write({{"id", id}, {"ok", true}, {"result", *r}});
      } else {
        write({{"id", id}, {"ok", false}, {"error", r.error().message}, {"exit", static_cast<int>(r.error().code)}});
      }
    });
    return true;
  }

  Result<json> dispatch(const std::string& op, const json& req, const json& id, std::stop_token stop) {
    try {
      if (op == "hello") return hello(req);
      if (!device_) return Error::input(fmt::format("agent protocol: '{}' before hello", op));
      if (op == "workload") {
        Result<Workload> w = protocol::workload_from_wire(req.at("workload"));
        if (!w) return w.error();
        Result<IterationPlan> plan = protocol::plan_from_wire(req.at("plan"));
        if (!plan) return plan.error();
        IterationSink sink = [&](const IterationBatch& b) { write(protocol::encode_iterations(id, b)); };
        Result<WorkloadWindow> win = device_->run_workload(*w, *plan, sink, stop);
        if (!win) return win.error();
        json reply{{"measuring_ns", win->measuring_ns}, {"end_ns", win->end_ns}, {"iterations", win->iterations}};
        if (win->counters) reply["counters"] = *win->counters;
        return reply;
      }
      if (op == "counters") {
        Result<Workload> w = protocol::workload_from_wire(req.at("workload"));
        if (!w) return w.error();
        Result<CountersConfig> c = protocol::counters_from_wire(req.at("counters"));
        if (!c) return c.error();
        StepEvents steps(*this, id);
        Result<CountersRecording> r = device_->measure_counters(*w, *c, stop, &steps);
        if (!r) return r.error();
        return json(*r);
      }
      if (op == "roofline") {
        Result<RooflineConfig> c = protocol::roofline_from_wire(req.at("roofline"));
        if (!c) return c.error();
        StepEvents steps(*this, id);
        Result<RooflineRecording> r = device_->measure_roofline(*c, stop, &steps);
        if (!r) return r.error();
        return json(*r);
      }
      if (op == "load.start") {
        Result<int> started = device_->start_load(req.at("argv").get<std::vector<std::string>>());
        if (!started) return started.error();
        return json{{"id", *started}};
      }
      if (op == "load.check") {
        HARNESS_TRY(device_->check_load(json_integer<int>(req.at("load"))));
        return json::object();
      }
      if (op == "load.stop") {
        Result<LoadStopped> o = device_->stop_load(json_integer<int>(req.at("load")));
        if (!o) return o.error();
        return json{{"end", o->end}, {"output", o->output}};
      }
      if (op == "file.read") return read_file(req);
      if (op == "stability.begin") {
        Result<StabilityPlan> plan = protocol::stability_plan_from_wire(req.at("plan"));
        if (!plan) return plan.error();
        HARNESS_TRY(device_->begin_stability(*plan));
        return json::object();
      }
      if (op == "stability.end") {
        Result<std::vector<StabilityReading>> readings = device_->end_stability();
        if (!readings) return readings.error();
        return json{{"readings", *readings}};
      }
      return Error::input(fmt::format("agent protocol: unknown op '{}'", op));
    } catch (const json::exception& e) {
      return Error::input(fmt::format("agent protocol: malformed '{}' request: {}", op, e.what()));
    }
  }

  Result<json> hello(const json& req) {
    int version = req.contains("protocol") && req["protocol"].is_number_integer() ? req["protocol"].get<int>() : 0;
    if (version != protocol::kVersion) {
      return Error::input(fmt::format("agent protocol: the host speaks protocol {}, this agent (harness {}) speaks {}: "
                                      "install the host's version of harness on the device",
                                      version, HARNESS_VERSION, protocol::kVersion));
    }
    std::vector<VersionCommand> versions;
    for (const json& v : req.value("versions", json::array()))
      versions.push_back({v.at("name").get<std::string>(), v.at("argv").get<std::vector<std::string>>()});
    // Clamped: a beat every microsecond floods the link, one a century apart
    // proves nothing (and overflows the wait).
    if (double hb = req.value("heartbeat_s", 0.0); std::isfinite(hb) && hb > 0)
      heartbeat_s_ = std::clamp(hb, kMinHeartbeatS, kMaxHeartbeatS);
    device_ = std::make_unique<LocalDevice>(clock_, versions, options_.stability_root);
    DeviceInfo info = device_->info();
    info.protocol = protocol::kVersion;
    return protocol::to_wire(info);
  }

  Result<json> read_file(const json& req) {
    const std::string path = req.at("path").get<std::string>();
    const std::uint64_t offset = json_integer<std::uint64_t>(req.at("offset"));
    const std::uint64_t max_bytes = json_integer<std::uint64_t>(req.at("max_bytes"));
    if (offset == 0 || file_path_ != path) {
      Result<std::string> data = device_->fetch_file(path, max_bytes);
      if (!data) return data.error();
      file_path_ = path;
      file_data_ = std::move(*data);
      file_sha_ = sha256_portable_hex(file_data_);
    }
    if (offset > file_data_.size()) return Error::input(fmt::format("device file {}: offset past its end", path));
    std::string chunk = file_data_.substr(offset, protocol::kFileChunkBytes);
    return json{{"size", file_data_.size()}, {"sha256", file_sha_}, {"data", protocol::base64_encode(chunk)}};
  }

  // A write waits for the host to read (stdout is non-blocking when it is a
  // pipe or socket), but never past shutdown: a host that stopped reading
  // must not keep the agent from ending.
  void write(const json& message) {
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::lock_guard lock(write_mutex_);
    if (link_lost_) return;
    for (std::size_t done = 0; done < line.size();) {
      ssize_t n = ::write(options_.out_fd, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN && !closing_) {
        pollfd out{options_.out_fd, POLLOUT, 0};
        (void)::poll(&out, 1, 100);
        continue;
      }
      if (n <= 0) {
        link_lost_ = true;  // EPIPE: nobody listens any more (or the agent is ending)
        return;
      }
      done += static_cast<std::size_t>(n);
    }
  }

  void heartbeat_loop() {
    std::unique_lock lock(heartbeat_mutex_);
    while (!stopping_) {
      heartbeat_cv_.wait_for(lock, std::chrono::duration<double>(heartbeat_s_.load()));
      if (stopping_) break;
      write({{"event", "heartbeat"}, {"t_ns", clock_.now_ns()}});
    }
  }

  void reap_worker_if_done() {
    std::lock_guard lock(worker_mutex_);
    if (worker_.joinable() && worker_done_) worker_.join();
  }

  void shutdown() {
    if (shut_down_) return;
    shut_down_ = true;
    closing_ = true;  // a write the host does not read gives up
    {
      std::lock_guard lock(worker_mutex_);
      if (op_stop_) op_stop_->request_stop();
    }
    if (device_) device_->stop_all_loads();  // first: a load must not outlive a lost link
    if (worker_.joinable()) worker_.join();
    if (device_) device_->stop_all_loads();  // and any the last op started
    {
      std::lock_guard lock(heartbeat_mutex_);
      stopping_ = true;
    }
    heartbeat_cv_.notify_all();
    if (heartbeat_.joinable()) heartbeat_.join();
  }

  AgentOptions options_;
  OffsetClock clock_;
  std::atomic<double> heartbeat_s_;
  std::unique_ptr<LocalDevice> device_;
  std::mutex write_mutex_;
  std::atomic<bool> link_lost_{false};
  std::atomic<bool> closing_{false};
  std::mutex worker_mutex_;
  std::thread worker_;
  std::atomic<bool> worker_done_{true};
  std::optional<std::stop_source> op_stop_;
  std::mutex heartbeat_mutex_;
  std::condition_variable heartbeat_cv_;
  bool stopping_ = false;
  std::thread heartbeat_;
  bool shut_down_ = false;
  std::string file_path_, file_data_, file_sha_;
};

}  // namespace

int run_agent(const AgentOptions& options) {
  if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return 3;
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
  sa.sa_handler = on_sigpipe;
  sigaction(SIGPIPE, &sa, nullptr);
  // Non-blocking stdout (a pipe or a socket, never a terminal shared with a
  // shell), restored on the way out.
  const int out_flags = ::fcntl(options.out_fd, F_GETFL);
  struct stat out_stat{};
  const bool nonblocking = out_flags >= 0 && ::fstat(options.out_fd, &out_stat) == 0 &&
                           (S_ISFIFO(out_stat.st_mode) || S_ISSOCK(out_stat.st_mode));
  if (nonblocking) ::fcntl(options.out_fd, F_SETFL, out_flags | O_NONBLOCK);
  int status = Agent(options).serve();
  if (nonblocking) ::fcntl(options.out_fd, F_SETFL, out_flags);
  return status;
}

}  // namespace harness
