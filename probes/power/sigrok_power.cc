#include "probes/power/sigrok_power.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/closest_match.h"
#include "probes/capture/sigrok.h"
#include "probes/clock.h"

// After the harness headers: glib defines macros that clash with their names.
#include <glibmm.h>
#include <libsigrokcxx/libsigrokcxx.hpp>

namespace harness {

// ---------------------------------------------------------------------------
// AnalogPowerSeries: analog readings to a power trace (no libsigrok here).

namespace {

// A voltage or current channel may run this many readings ahead of its
// partner; beyond it the oldest are dropped, so memory stays bounded.
constexpr std::size_t kMaxPending = std::size_t{1} << 16;

}  // namespace

AnalogPowerSeries::AnalogPowerSeries(AnalogPowerOptions options)
    : options_(std::move(options)), block_s_(options_.block_s > 0 ? options_.block_s : 0.1) {
  if (options_.max_readings < 2) options_.max_readings = 2;
  if (!options_.read_as.empty() || options_.channels.size() == 2) quantity_ = "power";
}

void AnalogPowerSeries::fail(std::string reason) {
  if (unavailable_.empty()) unavailable_ = std::move(reason);
}

std::optional<AnalogPowerSeries::Kind> AnalogPowerSeries::kind_of(const AnalogChunk& c) {
  // libsigrok 0.5.2 has no energy quantity: energy meters send watt-hours.
  if (c.unit == "watt hour") return Kind::energy;
  if (c.quantity == "power" && c.unit == "watt") return Kind::power;
  if (c.quantity == "voltage" && c.unit == "volt") return Kind::voltage;
  if (c.quantity == "current" && c.unit == "ampere") return Kind::current;
  fail(fmt::format("{}: channel {} measures {} ({}), not power, energy, voltage or current", options_.source,
                   c.channel, c.quantity, c.unit));
  return std::nullopt;
}

void AnalogPowerSeries::add(const AnalogChunk& c) {
  if (failed() || c.values.empty()) return;
  if (std::find(options_.channels.begin(), options_.channels.end(), c.channel) == options_.channels.end()) return;
  std::optional<Kind> kind = kind_of(c);
  if (!kind) return;
  auto [known, first] = kinds_.emplace(c.channel, *kind);
  if (!first && known->second != *kind) {
    fail(fmt::format("{}: channel {} changed from {} to {} during the window", options_.source, c.channel,
                     known->second == Kind::voltage ? "voltage" : known->second == Kind::current ? "current"
                     : known->second == Kind::power ? "power" : "energy",
                     c.quantity));
    return;
  }
  // Reading times: the last at the packet's arrival, the others one period
  // apart before it, never before the window or the channel's previous reading.
  std::vector<double> times(c.values.size());
  double& last = last_time_[c.channel];
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    double t = c.arrival_s - static_cast<double>(c.values.size() - 1 - i) * c.period_s;
    t = std::max({t, last, 0.0});
    times[i] = last = t;
  }

  if (options_.channels.size() == 1) {
    if (!options_.read_as.empty()) {
      read_as_label_ = fmt::format("{} readings in {}", c.quantity, c.unit);
      for (std::size_t i = 0; i < times.size(); ++i) push(times[i], c.values[i]);
      return;
    }
    if (*kind == Kind::voltage || *kind == Kind::current) {
      fail(fmt::format("{}: channel {} measures {}: a single channel must measure power or energy; name a voltage "
                       "and a current channel to multiply them",
                       options_.source, c.channel, c.quantity));
      return;
    }
    quantity_ = *kind == Kind::power ? "power" : "energy";
    const double scale = *kind == Kind::energy ? 3600.0 : 1.0;  // Wh -> J
    for (std::size_t i = 0; i < times.size(); ++i) push(times[i], c.values[i] * scale);
    return;
  }

  if (*kind == Kind::power || *kind == Kind::energy) {
    fail(fmt::format("{}: channel {} measures {}; with two channels, one must measure voltage and the other current",
                     options_.source, c.channel, c.quantity));
    return;
  }
  for (const auto& [name, k] : kinds_) {
    if (name != c.channel && k == *kind) {
      fail(fmt::format("{}: channels {} and {} both measure {}; one must measure voltage and the other current",
                       options_.source, options_.channels[0], options_.channels[1], c.quantity));
      return;
    }
  }
  auto& mine = *kind == Kind::voltage ? pending_v_ : pending_i_;
  for (std::size_t i = 0; i < times.size(); ++i) mine.emplace_back(times[i], c.values[i]);
  if (mine.size() > kMaxPending) mine.erase(mine.begin(), mine.end() - kMaxPending);
  const std::size_t pairs = std::min(pending_v_.size(), pending_i_.size());
  for (std::size_t i = 0; i < pairs; ++i) {
    push(std::max(pending_v_[i].first, pending_i_[i].first), pending_v_[i].second * pending_i_[i].second);
  }
  pending_v_.erase(pending_v_.begin(), pending_v_.begin() + pairs);
  pending_i_.erase(pending_i_.begin(), pending_i_.begin() + pairs);
}

void AnalogPowerSeries::push(double t, double v) {
  if (t >= block_end_) {
    close_block();
    block_end_ = (std::floor(t / block_s_) + 1) * block_s_;
  }
  open_.t_sum += t;
  open_.v_sum += v;
  open_.last_t = t;
  open_.last_v = v;
  ++open_.n;
}

void AnalogPowerSeries::close_block() {
  if (open_.n == 0) return;
  const double n = static_cast<double>(open_.n);
  // A cumulative energy counter keeps its last value; power is averaged.
  if (quantity_ == "energy") {
    t_s_.push_back(open_.last_t);
    value_.push_back(open_.last_v);
  } else {
    t_s_.push_back(open_.t_sum / n);
    value_.push_back(open_.v_sum / n);
  }
  counts_.push_back(open_.n);
  latest_s_ = t_s_.back();
  open_ = Block{};
  if (t_s_.size() >= options_.max_readings) merge_neighbours();
}

void AnalogPowerSeries::merge_neighbours() {
  const std::size_t n = t_s_.size();
  std::size_t out = 0;
  for (std::size_t i = 0; i < n; i += 2, ++out) {
    if (i + 1 == n) {  // an odd one out stays as it is
      t_s_[out] = t_s_[i];
      value_[out] = value_[i];
      counts_[out] = counts_[i];
    } else if (quantity_ == "energy") {
      t_s_[out] = t_s_[i + 1];
      value_[out] = value_[i + 1];
      counts_[out] = counts_[i] + counts_[i + 1];
    } else {
      const double a = static_cast<double>(counts_[i]), b = static_cast<double>(counts_[i + 1]);
      t_s_[out] = (t_s_[i] * a + t_s_[i + 1] * b) / (a + b);
      value_[out] = (value_[i] * a + value_[i + 1] * b) / (a + b);
      counts_[out] = counts_[i] + counts_[i + 1];
    }
  }
  t_s_.resize(out);
  value_.resize(out);
  counts_.resize(out);
  block_s_ *= 2;
}

PowerTrace AnalogPowerSeries::finish() {
  close_block();
  PowerTrace t;
  t.source = options_.source;
  if (!options_.read_as.empty()) {
    t.source += fmt::format(" (read_as = \"{}\": {} taken as watts, a test override, not a power measurement)",
                            options_.read_as, read_as_label_.empty() ? "the readings" : read_as_label_);
  }
  t.quantity = quantity_;
  if (failed()) {
    t.unavailable = unavailable_;
    return t;
  }
  if (t_s_.empty()) {
    t.unavailable = fmt::format("{}: no reading during the window", options_.source);
    return t;
  }
  t.t_s = std::move(t_s_);
  t.value = std::move(value_);
  t_s_.clear();
  value_.clear();
  return t;
}

// ---------------------------------------------------------------------------
// The libsigrok side.

namespace {

using Steady = std::chrono::steady_clock;

// Below this the demo driver (paced to real time, 200 kHz by default) and
// any sampling driver give a bounded number of readings per second: a power
// figure needs no more. Drivers without a settable rate (most multimeters)
// read at their own pace.
constexpr std::uint64_t kDefaultSamplerate = 1000;

// "DUTY_CYCLE" -> "duty cycle": libsigrok's enum names in words.
std::string words(std::string name) {
  for (char& c : name) c = c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::optional<double> samplerate_of(const std::shared_ptr<sigrok::Device>& device) {
  try {
    if (!device->config_check(sigrok::ConfigKey::SAMPLERATE, sigrok::Capability::GET)) return std::nullopt;
    Glib::VariantBase v = device->config_get(sigrok::ConfigKey::SAMPLERATE);
    return static_cast<double>(Glib::VariantBase::cast_dynamic<Glib::Variant<guint64>>(v).get());
  } catch (...) {
    return std::nullopt;  // a driver may list the key and still not answer
  }
}

class SigrokPowerRecorder final : public PowerRecorder {
 public:
  SigrokPowerRecorder(std::shared_ptr<sigrok::Context> context, std::shared_ptr<sigrok::HardwareDevice> device,
                      AnalogPowerOptions options, std::string what, double period_s)
      : context_(std::move(context)), device_(std::move(device)), options_(std::move(options)),
        what_(std::move(what)), period_s_(period_s) {
    description_ = options_.source;
    if (!options_.read_as.empty())
      description_ += fmt::format(" (read_as = \"{}\": readings taken as watts, a test override)", options_.read_as);
  }
  ~SigrokPowerRecorder() override {
    halt();
    (void)sigrok_guarded(what_, [&]() -> Status {
      device_->close();
      return ok();
    });
  }
  const std::string& describe() const override { return description_; }
  std::uint64_t covered_until_ns() override {
    const double t = series_ ? series_->latest_s() : -1;
    return t < 0 ? 0 : start_ns_ + static_cast<std::uint64_t>(t * 1e9);
  }

  Status begin() override {
    halt();  // one recorder serves every condition's window in turn
    series_.emplace(options_);
    stopping_ = false;
    start_ns_ = MonotonicClock().now_ns();
    start_ = Steady::now();
    std::promise<Status> started;
    std::future<Status> result = started.get_future();
    thread_ = std::thread([this, started = std::move(started)]() mutable { run(started); });
    Status s = result.get();
    if (!s) {
      thread_.join();
      release_session();
      series_->fail(s.error().message);  // the window reads "unavailable", as for a sysfs source
    }
    return ok();
  }

  PowerTrace end() override {
    halt();
    PowerTrace t = series_ ? series_->finish() : PowerTrace{};
    t.start_ns = start_ns_;
    series_.reset();
    return t;
  }

 private:
  // On the session's thread: sr_session_start binds the session to this
  // thread's main context, and sr_session_run iterates it until stopped.
  void run(std::promise<Status>& started) {
    Status s = sigrok_guarded(what_, [&]() -> Status {
      session_ = context_->create_session();
      session_->add_device(device_);
      session_->add_datafeed_callback(
          [this](std::shared_ptr<sigrok::Device>, std::shared_ptr<sigrok::Packet> p) { on_packet(*p); });
      session_->start();
      return ok();
    });
    started.set_value(s);
    if (!s) return;
    Status r = sigrok_guarded(what_, [&]() -> Status {
      session_->run();
      return ok();
    });
    if (!r) series_->fail(r.error().message);
  }

  // Called from libsigrok's C code: nothing may escape. sr_session_stop()
  // called here runs synchronously and feeds the end packet back into this
  // callback, so stop once and ignore what follows.
  void on_packet(sigrok::Packet& packet) {
    if (stopping_) return;
    Status s = sigrok_guarded(what_, [&]() -> Status {
      if (packet.type() == sigrok::PacketType::META) {
        auto meta = std::dynamic_pointer_cast<sigrok::Meta>(packet.payload());
        for (const auto& [key, value] : meta->config())
          if (key == sigrok::ConfigKey::SAMPLERATE) {
            auto rate = Glib::VariantBase::cast_dynamic<Glib::Variant<guint64>>(value).get();
            if (rate > 0) period_s_ = 1.0 / static_cast<double>(rate);
          }
      } else if (packet.type() == sigrok::PacketType::ANALOG) {
        auto analog = std::dynamic_pointer_cast<sigrok::Analog>(packet.payload());
        auto channels = analog->channels();
        if (channels.size() != 1)
          return Error::infra(fmt::format("{}: an analog packet carries {} channels at once; expected one per packet",
                                          options_.source, channels.size()));
        AnalogChunk chunk;
        chunk.channel = channels.front()->name();
        chunk.arrival_s = std::chrono::duration<double>(Steady::now() - start_).count();
        chunk.period_s = period_s_;
        // A driver may leave the quantity or unit unset (0), which the
        // bindings cannot name.
        try {
          chunk.quantity = words(analog->mq()->name());
        } catch (const sigrok::Error&) {
          chunk.quantity = "an unnamed quantity";
        }
        try {
          chunk.unit = words(analog->unit()->name());
        } catch (const sigrok::Error&) {
          chunk.unit = "no unit";
        }
        chunk.values.resize(analog->num_samples());
        analog->get_data_as_float(chunk.values.data());
        series_->add(chunk);
      }
      return ok();
    });
    if (!s) series_->fail(s.error().message);
    if (series_->failed()) {
      // Readings are unusable from here on: no point keeping the device busy.
      stopping_ = true;
      (void)sigrok_guarded(what_, [&]() -> Status {
        session_->stop();
        return ok();
      });
    }
  }

  void halt() {
    if (!thread_.joinable()) return;
    (void)sigrok_guarded(what_, [&]() -> Status {
      session_->stop();  // reentrant in libsigrok 0.5: may be called from another thread
      return ok();
    });
    thread_.join();
    release_session();
  }

  // Destroying the session releases the device for the next window's session.
  void release_session() {
    Status s = sigrok_guarded(what_, [&]() -> Status {
      session_.reset();
      return ok();
    });
    if (!s && series_) series_->fail(s.error().message);
  }

  std::shared_ptr<sigrok::Context> context_;
  std::shared_ptr<sigrok::HardwareDevice> device_;
  AnalogPowerOptions options_;
  std::string what_, description_;
  double period_s_;  // written on the session's thread only while it runs
  std::shared_ptr<sigrok::Session> session_;
  std::thread thread_;
  std::atomic<bool> stopping_ = false;
  std::optional<AnalogPowerSeries> series_;
  std::uint64_t start_ns_ = 0;
  Steady::time_point start_;
};

}  // namespace

Result<PowerOpen> open_sigrok_power(const PowerConfig& c) {
  const std::string what = "latency.power: sigrok driver " + c.driver;
  std::unique_ptr<PowerRecorder> recorder;
  std::string unavailable;
  Status opened = sigrok_guarded(what, [&]() -> Status {
    auto ctx = sigrok_context();
    Result<std::shared_ptr<sigrok::Driver>> driver = find_sigrok_driver(c.driver);
    if (!driver) return driver.error().within("latency.power");
    std::map<const sigrok::ConfigKey*, Glib::VariantBase> scan_options;
    if (!c.connection.empty())
      scan_options[sigrok::ConfigKey::CONN] = Glib::Variant<Glib::ustring>::create(c.connection);
    std::vector<std::shared_ptr<sigrok::HardwareDevice>> devices;
    Status scanned = sigrok_guarded(what, [&]() -> Status {
      devices = (*driver)->scan(scan_options);
      return ok();
    });
    if (!scanned) {
      unavailable = scanned.error().message;
      return ok();
    }
    if (devices.empty()) {
      unavailable = fmt::format("sigrok driver {}: no device found{}", c.driver,
                                c.connection.empty() ? "" : " at '" + c.connection + "'");
      return ok();
    }
    auto device = devices.front();

    // The channels, checked before the device is opened.
    std::vector<std::string> analog;
    std::map<std::string, std::shared_ptr<sigrok::Channel>> by_name;
    for (const auto& ch : device->channels()) {
      by_name[ch->name()] = ch;
      if (ch->type() == sigrok::ChannelType::ANALOG) analog.push_back(ch->name());
    }
    const std::string listing = analog.empty() ? "it has no analog channel"
                                               : fmt::format("its analog channels: {}", fmt::join(analog, ", "));
    for (const std::string& wanted : c.channels) {
      auto found = by_name.find(wanted);
      if (found == by_name.end()) {
        std::optional<std::string> close = closest_match(wanted, analog);
        return Error::input(fmt::format("{}: no channel '{}'{}; {}", what, wanted,
                                        close ? fmt::format(" (did you mean '{}'?)", *close) : "", listing));
      }
      if (found->second->type() != sigrok::ChannelType::ANALOG)
        return Error::input(fmt::format("{}: channel '{}' is not an analog channel; {}", what, wanted, listing));
    }

    const bool settable_rate = device->config_check(sigrok::ConfigKey::SAMPLERATE, sigrok::Capability::SET);
    if (c.samplerate > 0 && !settable_rate)
      return Error::input(fmt::format("{}: the driver has no settable sample rate; leave samplerate out (it reads at "
                                      "its own pace)",
                                      what));
    Status configured = sigrok_guarded(what, [&]() -> Status {
      device->open();
      return ok();
    });
    if (!configured) {
      unavailable = configured.error().message;
      return ok();
    }
    struct CloseUnlessKept {
      std::shared_ptr<sigrok::HardwareDevice> device;
      ~CloseUnlessKept() {
        if (!device) return;
        try {
          device->close();
        } catch (...) {
        }
      }
    } closer{device};
    for (const auto& [name, ch] : by_name)
      ch->set_enabled(std::find(c.channels.begin(), c.channels.end(), name) != c.channels.end());
    if (settable_rate) {
      const auto rate = c.samplerate > 0 ? static_cast<std::uint64_t>(std::llround(c.samplerate)) : kDefaultSamplerate;
      device->config_set(sigrok::ConfigKey::SAMPLERATE, Glib::Variant<guint64>::create(rate));
    }
    // No sample, time or frame limit is set: a freshly scanned device then
    // acquires until the session is stopped (libsigrok refuses a limit of 0).

    AnalogPowerOptions options;
    options.source = fmt::format("sigrok:{}{} {}", c.driver, c.connection.empty() ? "" : "(" + c.connection + ")",
                                 fmt::join(c.channels, "*"));
    if (c.channels.size() == 2) options.source += " (voltage times current)";
    options.channels = c.channels;
    options.read_as = c.read_as;
    options.block_s = c.interval_s;
    const std::optional<double> rate = samplerate_of(device);
    recorder = std::make_unique<SigrokPowerRecorder>(ctx, device, options, what, rate && *rate > 0 ? 1.0 / *rate : 0);
    closer.device.reset();  // the recorder closes it
    return ok();
  });
  if (!opened) return opened.error();
  return PowerOpen{std::move(recorder), unavailable};
}

}  // namespace harness
