// The one place where libsigrokcxx is used for captures: reading and writing
// sigrok session files (.sr) and acquiring from a sigrok driver. libsigrok
// errors (C++ exceptions) are turned into Error values here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/capture/capture.h"

namespace sigrok {
class Context;
class Driver;
class Output;
class UserDevice;
}  // namespace sigrok

namespace harness {

// Runs `f`, turning libsigrok's (and glibmm's) exceptions into an Error with
// `what` in front: the one place they are converted, for captures and power.
Status sigrok_guarded(const std::string& what, const std::function<Status()>& f);

// The process's libsigrok context (created on first use, quietly).
std::shared_ptr<sigrok::Context> sigrok_context();
// The driver named `name`; an unknown name is bad input that suggests the
// closest ("no sigrok driver 'demoo' (did you mean 'demo'?)"). Call it inside
// sigrok_guarded: libsigrok reports through exceptions.
Result<std::shared_ptr<sigrok::Driver>> find_sigrok_driver(const std::string& name);
// "libsigrok 0.5.2"
std::string sigrok_version();

// Writes a capture as a sigrok session file that PulseView opens. The srzip
// output rewrites the whole archive for every packet it is handed, so the
// samples are merged into large packets (chunk_bytes, default 64 MiB) first.
class SrWriter : public CaptureSink {
 public:
  explicit SrWriter(std::string path, std::size_t chunk_bytes = std::size_t{64} << 20);
  ~SrWriter() override;
  Status begin(const CaptureHeader& header) override;
  Status samples(const std::uint8_t* data, std::size_t count) override;
  Status end() override;

 private:
  Status flush();
  std::string path_;
  std::size_t chunk_bytes_;
  unsigned unitsize_ = 1;
  std::vector<std::uint8_t> buffer_;
  std::shared_ptr<sigrok::UserDevice> device_;
  std::shared_ptr<sigrok::Output> output_;
};

// Acquisition from a sigrok driver (the live path; tested with "demo").
struct SigrokAcquisition {
  std::string driver;                       // "demo", "fx2lafw", "saleae-logic16"...
  std::string connection;                   // "conn" option, may be empty
  std::vector<std::string> channels;        // channels to enable (empty: all logic)
  double samplerate = 0;                    // Hz; 0: the driver's default
  std::uint64_t limit_samples = 0;          // 0: use limit_msec
  std::uint64_t limit_msec = 0;
  std::string trigger;                      // "CK=r,CS=1" (channel=0|1|r|f|e); empty: none
  std::map<std::string, std::string> group_options;  // e.g. {"pattern","graycode"} for channel group "Logic"
  // Polled at every packet: true stops the acquisition early (SIGINT).
  std::function<bool()> should_stop;
  // Polled at every packet: true ends the acquisition as complete (the
  // workload window it covered has closed); the sink gets its end.
  std::function<bool()> should_end;
  // Called once the session has started: the device is armed (with a
  // trigger, samples come when it fires). `stop` ends the acquisition from
  // another thread (libsigrok's session stop is reentrant), for a window
  // that closes while no packet arrives (a trigger that never fired).
  std::function<void(std::function<void()> stop)> on_started;
};

// Runs the acquisition and streams the samples to `sink`. A driver or
// device that does not exist is an Error naming it (and close names).
Status sigrok_acquire(const SigrokAcquisition& acquisition, CaptureSink& sink);

}  // namespace harness
