#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/base/files.h"
#include "harness/runner/acquire.h"
#include "probes/capture/readers.h"
#include "probes/capture/sigrok.h"

namespace harness {
namespace {

// Keeps the capture as the recording's raw truth: named relative to the
// run's artifact folder, with its hash and size.
Status record_file(const AcquireContext& ctx, const std::string& name, DdrRecording& out) {
  std::string path = (std::filesystem::path(ctx.artifact_dir) / name).string();
  Result<std::string> digest = sha256_file(path);
  if (!digest) return Error::input("ddr capture: " + digest.error().message);
  std::error_code ec;
  out.capture = name;
  out.sha256 = *digest;
  out.size = std::filesystem::file_size(path, ec);
  return ok();
}

// An imported capture joins the run's artifacts as a private copy (a
// reflink where the filesystem allows, else bytes), never a hard link: a
// later write to the user's file must not change the run's raw truth.
Status import_file(const AcquireContext& ctx, const std::string& source, const std::string& name) {
  std::filesystem::path target = std::filesystem::path(ctx.artifact_dir) / name;
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return Error::infra(fmt::format("ddr capture folder {}: {}", target.parent_path().string(), ec.message()));
  std::filesystem::remove(target, ec);
  Status copied = copy_file_private(source, target.string());
  if (!copied) return Error::input(fmt::format("ddr capture {}: {}", source, copied.error().message));
  return ok();
}

SigrokAcquisition acquisition_for(const AcquireContext& ctx) {
  const DdrConfig& cfg = *ctx.scenario.ddr;
  const DdrAcquireConfig& a = *cfg.acquire;
  SigrokAcquisition acq;
  acq.driver = a.driver;
  acq.connection = a.connection;
  acq.samplerate = a.samplerate;
  acq.limit_samples = a.samples;
  acq.limit_msec = static_cast<std::uint64_t>(a.duration * 1e3);
  acq.trigger = a.trigger;
  if (!a.pattern.empty()) acq.group_options["pattern"] = a.pattern;
  for (const auto& [role, name] : cfg.channels) acq.channels.push_back(name);
  std::stop_token stop = ctx.stop;
  acq.should_stop = [stop] { return stop.stop_requested(); };
  return acq;
}

Status make_capture_folder(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return Error::infra(fmt::format("ddr capture folder {}: {}", path.parent_path().string(), ec.message()));
  return ok();
}

// Passes samples on to the file and notes, on the host's monotonic clock,
// when the first packet arrived and how many samples came.
class TimedSink final : public CaptureSink {
 public:
  TimedSink(CaptureSink& inner, Clock& clock) : inner_(inner), clock_(clock) {}
  Status begin(const CaptureHeader& header) override {
    samplerate_ = header.samplerate;
    return inner_.begin(header);
  }
  Status samples(const std::uint8_t* data, std::size_t count) override {
    if (count > 0 && total_ == 0) {
      std::lock_guard lock(mutex_);
      first_packet_ns_ = clock_.now_ns();
      first_count_ = count;
      armed_.notify_all();
    }
    total_ += count;
    return inner_.samples(data, count);
  }
  Status end() override { return inner_.end(); }

  // Waits until samples flow or `done` says the acquisition ended.
  bool wait_armed(double seconds, const std::function<bool()>& done) {
    std::unique_lock lock(mutex_);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    while (first_packet_ns_ == 0 && !done()) {
      if (armed_.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(20))) ==
              std::cv_status::timeout &&
          std::chrono::steady_clock::now() >= deadline) {
        break;
      }
    }
    return first_packet_ns_ != 0;
  }
  // The first sample's time: the first packet arrived once its samples were taken.
  std::uint64_t first_sample_ns() const {
    return samplerate_ > 0 ? first_packet_ns_ - static_cast<std::uint64_t>(static_cast<double>(first_count_) / samplerate_ * 1e9)
                           : first_packet_ns_;
  }
  std::uint64_t last_sample_ns() const {
    return samplerate_ > 0 ? first_sample_ns() + static_cast<std::uint64_t>(static_cast<double>(total_) / samplerate_ * 1e9)
                           : first_packet_ns_;
  }
  std::uint64_t total() const { return total_; }

 private:
  CaptureSink& inner_;
  Clock& clock_;
  double samplerate_ = 0;
  std::mutex mutex_;
  std::condition_variable armed_;
  std::uint64_t first_packet_ns_ = 0;
  std::size_t first_count_ = 0;
  std::atomic<std::uint64_t> total_{0};
};

}  // namespace

struct WindowCapture::Running {
  std::string name = "ddr/capture.sr";
  std::unique_ptr<SrWriter> writer;
  std::unique_ptr<TimedSink> sink;
  std::atomic<bool> stop{false};
  std::atomic<bool> started{false};  // the session runs: the device is armed
  std::mutex stop_mutex;
  std::function<void()> stop_session;  // set once started
  std::atomic<bool> done{false};
  Status status = ok();
  std::thread thread;
};

namespace {

// Ends the acquisition and waits for its thread: the flag ends it at the next
// packet, the session stop when no packet comes.
void halt(WindowCapture::Running& r) {
  r.stop = true;
  {
    std::lock_guard lock(r.stop_mutex);
    if (r.stop_session) r.stop_session();
  }
  if (r.thread.joinable()) r.thread.join();
}

}  // namespace

WindowCapture::WindowCapture(const AcquireContext& context, DdrRecording& out) : ctx_(context), out_(out) {}

WindowCapture::~WindowCapture() {
  if (running_) halt(*running_);
}

std::uint64_t WindowCapture::samples_so_far() const {
  return running_ && running_->sink ? running_->sink->total() : 0;
}

Status WindowCapture::start() {
  SigrokAcquisition acq = acquisition_for(ctx_);
  auto r = std::make_unique<Running>();
  std::filesystem::path path = std::filesystem::path(ctx_.artifact_dir) / r->name;
  HARNESS_TRY(make_capture_folder(path));
  r->writer = std::make_unique<SrWriter>(path.string());
  r->sink = std::make_unique<TimedSink>(*r->writer, ctx_.clock);
  Running* raw = r.get();
  acq.should_end = [raw] { return raw->stop.load(); };
  acq.on_started = [raw](std::function<void()> stop) {
    std::lock_guard lock(raw->stop_mutex);
    raw->stop_session = std::move(stop);
    raw->started = true;
  };
  // Armed means sampling; with a trigger, it means waiting for the trigger.
  const bool triggered = !acq.trigger.empty();
  out_.source = "sigrok:" + acq.driver;
  out_.format = "sr";
  running_ = std::move(r);
  raw->thread = std::thread([raw, acq] {
    raw->status = sigrok_acquire(acq, *raw->sink);
    raw->done = true;
  });
  auto armed = [raw, triggered] { return raw->done.load() || (triggered && raw->started.load()); };
  if (!raw->sink->wait_armed(10, armed) && !(triggered && raw->started)) {
    halt(*raw);
    if (!raw->status) {
      if (raw->status.error().code == ExitCode::bad_input) return raw->status.error().within("ddr acquisition");
      out_.unavailable = raw->status.error().message;
      return ok();
    }
    out_.unavailable = "the analyzer delivered no samples within 10 s of its start";
  }
  return ok();
}

Status WindowCapture::finish() {
  if (!running_ || !running_->thread.joinable()) return ok();
  Running& r = *running_;
  // The capture must reach the window's end: packets arrive once their
  // samples were taken, so wait (at most 1 s) for one that ends after now.
  const std::uint64_t closed = ctx_.clock.now_ns();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (r.sink->total() > 0 && r.sink->last_sample_ns() < closed && !r.done &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  halt(r);
  first_ns_ = r.sink->first_sample_ns();
  last_ns_ = r.sink->last_sample_ns();
  Status s = r.status;
  if (ctx_.stop.stop_requested()) return interrupted_error();
  if (!s) {
    out_.unavailable = s.error().message;
    return ok();
  }
  if (r.sink->total() == 0) {
    const std::string& trigger = ctx_.scenario.ddr->acquire->trigger;
    out_.unavailable = trigger.empty() ? "the analyzer delivered no samples during the window"
                                       : "the analyzer's trigger (" + trigger + ") did not fire during the window";
    first_ns_ = last_ns_ = 0;
    return ok();
  }
  return record_file(ctx_, r.name, out_);
}

Status acquire_ddr(const AcquireContext& ctx, DdrRecording& out) {
  if (!ctx.scenario.ddr) return ok();
  const DdrConfig& cfg = *ctx.scenario.ddr;
  if (!cfg.acquire) {
    out.source = "file:" + cfg.capture;
    out.format = cfg.format;
    if (out.format.empty()) {
      Result<std::string> detected = detect_capture_format(cfg.capture_path);
      if (!detected) return detected.error().within("ddr capture");
      out.format = *detected;
    }
    std::string name = "ddr/capture" + std::filesystem::path(cfg.capture_path).extension().string();
    HARNESS_TRY(import_file(ctx, cfg.capture_path, name));
    return record_file(ctx, name, out);
  }
  if (ctx.stop.stop_requested()) return interrupted_error();
  SigrokAcquisition acq = acquisition_for(ctx);
  const std::string name = "ddr/capture.sr";
  std::filesystem::path path = std::filesystem::path(ctx.artifact_dir) / name;
  HARNESS_TRY(make_capture_folder(path));
  out.source = "sigrok:" + acq.driver;
  out.format = "sr";
  SrWriter writer(path.string());
  Status s = sigrok_acquire(acq, writer);
  if (!s && ctx.stop.stop_requested()) return interrupted_error();
  if (!s) {
    // A wrong name in the scenario stops the run; a device that is not
    // there is a missing source.
    if (s.error().code == ExitCode::bad_input) return s.error().within("ddr acquisition");
    out.unavailable = s.error().message;
    return ok();
  }
  return record_file(ctx, name, out);
}

}  // namespace harness
