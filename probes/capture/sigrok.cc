#include "probes/capture/sigrok.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "harness/base/closest_match.h"
#include "probes/capture/readers.h"

// After the harness headers: glib defines macros that clash with their names.
#include <glibmm.h>
#include <libsigrokcxx/libsigrokcxx.hpp>

namespace harness {
namespace {

template <class F>
Status guarded(const std::string& what, F&& f) {
  return sigrok_guarded(what, std::forward<F>(f));
}

// Feeds logic packets into a sink, widening odd unit sizes (3 bytes for 17-24
// channels) to the CaptureHeader sizes, and remembering the first error.
class PacketFeed {
 public:
  PacketFeed(CaptureSink& sink, CaptureHeader header) : sink_(sink), header_(std::move(header)) {}

  bool failed() const { return error_.has_value(); }
  Status status() const { return error_ ? Status(*error_) : ok(); }
  void set_samplerate(double rate) {
    if (!begun_) header_.samplerate = rate;
  }
  void logic(const std::uint8_t* data, std::size_t bytes, unsigned unit) {
    if (failed() || unit == 0) return;
    if (!begun_) {
      begun_ = true;
      keep(sink_.begin(header_));
      if (failed()) return;
    }
    std::size_t count = bytes / unit;
    if (unit == header_.unitsize) {
      keep(sink_.samples(data, count));
      return;
    }
    wide_.assign(count * header_.unitsize, 0);
    unsigned n = std::min(unit, header_.unitsize);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(&wide_[i * header_.unitsize], data + i * unit, n);
    keep(sink_.samples(wide_.data(), count));
  }
  Status finish() {
    if (failed()) return *error_;
    if (!begun_) HARNESS_TRY(sink_.begin(header_));
    return sink_.end();
  }

 private:
  void keep(Status s) {
    if (!s && !error_) error_ = s.error();
  }
  CaptureSink& sink_;
  CaptureHeader header_;
  bool begun_ = false;
  std::optional<Error> error_;
  std::vector<std::uint8_t> wide_;
};

std::vector<std::string> logic_channel_names(const std::shared_ptr<sigrok::Device>& device) {
  std::vector<std::pair<unsigned, std::string>> found;
  for (const auto& ch : device->channels())
    if (ch->type() == sigrok::ChannelType::LOGIC) found.emplace_back(ch->index(), ch->name());
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& [index, name] : found) {
    // Bit positions follow the channel index; fill holes so bits stay put.
    while (names.size() < index) names.push_back(fmt::format("unused{}", names.size()));
    names.push_back(name);
  }
  return names;
}

std::optional<double> device_samplerate(const std::shared_ptr<sigrok::Device>& device) {
  try {
    Glib::VariantBase v = device->config_get(sigrok::ConfigKey::SAMPLERATE);
    return static_cast<double>(Glib::VariantBase::cast_dynamic<Glib::Variant<guint64>>(v).get());
  } catch (...) {
    return std::nullopt;
  }
}

// sr_session_stop() runs synchronously and feeds the end packet back into
// this callback: stop once, and ignore what comes after.
void on_packet(PacketFeed& feed, const std::shared_ptr<sigrok::Session>& session,
               const std::shared_ptr<sigrok::Packet>& packet, bool& stopping,
               const std::function<bool()>& should_stop = {}) {
  if (stopping) return;
  if (should_stop && should_stop()) {
    stopping = true;
    session->stop();
    return;
  }
  if (packet->type() == sigrok::PacketType::LOGIC) {
    auto logic = std::dynamic_pointer_cast<sigrok::Logic>(packet->payload());
    feed.logic(static_cast<const std::uint8_t*>(logic->data_pointer()), logic->data_length(), logic->unit_size());
    if (feed.failed()) {
      stopping = true;
      session->stop();
    }
  } else if (packet->type() == sigrok::PacketType::META) {
    auto meta = std::dynamic_pointer_cast<sigrok::Meta>(packet->payload());
    for (const auto& [key, value] : meta->config())
      if (key == sigrok::ConfigKey::SAMPLERATE)
        feed.set_samplerate(static_cast<double>(Glib::VariantBase::cast_dynamic<Glib::Variant<guint64>>(value).get()));
  }
}

}  // namespace

Status sigrok_guarded(const std::string& what, const std::function<Status()>& f) {
  try {
    return f();
  } catch (const sigrok::Error& e) {
    return Error::infra(fmt::format("{}: libsigrok: {}", what, e.what()));
  } catch (const Glib::Error& e) {
    return Error::infra(fmt::format("{}: {}", what, std::string(e.what())));
  } catch (const std::exception& e) {
    return Error::infra(fmt::format("{}: {}", what, e.what()));
  }
}

std::shared_ptr<sigrok::Context> sigrok_context() {
  static std::once_flag once;
  static std::shared_ptr<sigrok::Context> context;
  std::call_once(once, [] {
    Glib::init();
    context = sigrok::Context::create();
    context->set_log_level(sigrok::LogLevel::ERR);
  });
  return context;
}

std::string sigrok_version() { return "libsigrok " + sigrok::Context::package_version(); }

Status read_sr_libsigrok(const std::string& path, CaptureSink& sink) {
  // load_session only says "generic error" for a missing file: check first.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Error::input(fmt::format("{}: {}", path, std::filesystem::exists(path, ec) ? "not a regular file"
                                                                                      : "No such file or directory"));
  std::optional<PacketFeed> feed;
  Status loaded = guarded(path, [&]() -> Status {
    std::shared_ptr<sigrok::Session> session;
    try {
      session = sigrok_context()->load_session(path);
    } catch (const sigrok::Error& e) {
      return Error::input(fmt::format("{}: not a readable sigrok session file (libsigrok: {})", path, e.what()));
    }
    auto devices = session->devices();
    if (devices.empty()) return Error::input(path + ": the session holds no device");
    CaptureHeader header;
    header.channels = logic_channel_names(devices.front());
    if (header.channels.empty()) return Error::input(path + ": the session has no logic channels");
    if (header.channels.size() > 64) return Error::input(path + ": more than 64 logic channels");
    header.unitsize = CaptureHeader::unitsize_for(header.channels.size());
    header.samplerate = device_samplerate(devices.front()).value_or(0);
    header.format = "sr";
    feed.emplace(sink, header);
    bool stopping = false;
    session->add_datafeed_callback([&](std::shared_ptr<sigrok::Device>, std::shared_ptr<sigrok::Packet> p) {
      on_packet(*feed, session, p, stopping);
    });
    session->start();
    session->run();
    return ok();
  });
  if (!loaded) return loaded;
  return feed->finish();
}

SrWriter::SrWriter(std::string path, std::size_t chunk_bytes) : path_(std::move(path)), chunk_bytes_(chunk_bytes) {}

SrWriter::~SrWriter() = default;

Status SrWriter::begin(const CaptureHeader& header) {
  if (header.samplerate <= 0) return Error::input(path_ + ": a sigrok session needs a sample rate");
  unitsize_ = header.unitsize;
  buffer_.clear();
  buffer_.reserve(chunk_bytes_);
  std::error_code ec;
  std::filesystem::remove(path_, ec);  // srzip appends to an existing archive
  return guarded(path_, [&]() -> Status {
    auto ctx = sigrok_context();
    device_ = ctx->create_user_device("harness", "capture", HARNESS_VERSION);
    for (unsigned i = 0; i < header.channels.size(); ++i)
      device_->add_channel(i, sigrok::ChannelType::LOGIC, header.channels[i]);
    auto formats = ctx->output_formats();
    auto srzip = formats.find("srzip");
    if (srzip == formats.end()) return Error::infra("libsigrok has no srzip output");
    // Always with a file name: an srzip output without one kills the process
    // from its destructor.
    output_ = srzip->second->create_output(path_, device_);
    output_->receive(ctx->create_header_packet(Glib::TimeVal(0, 0)));
    std::map<const sigrok::ConfigKey*, Glib::VariantBase> meta = {
        {sigrok::ConfigKey::SAMPLERATE,
         Glib::Variant<guint64>::create(static_cast<guint64>(std::llround(header.samplerate)))}};
    output_->receive(ctx->create_meta_packet(meta));
    return ok();
  });
}

Status SrWriter::flush() {
  if (buffer_.empty()) return ok();
  Status s = guarded(path_, [&]() -> Status {
    output_->receive(sigrok_context()->create_logic_packet(buffer_.data(), buffer_.size(), unitsize_));
    return ok();
  });
  buffer_.clear();
  return s;
}

Status SrWriter::samples(const std::uint8_t* data, std::size_t count) {
  if (!output_) return Error::infra(path_ + ": samples before begin");
  std::size_t bytes = count * unitsize_;
  while (bytes > 0) {
    std::size_t room = chunk_bytes_ - buffer_.size();
    std::size_t take = std::min(room, bytes) / unitsize_ * unitsize_;
    buffer_.insert(buffer_.end(), data, data + take);
    data += take;
    bytes -= take;
    if (buffer_.size() + unitsize_ > chunk_bytes_) HARNESS_TRY(flush());
  }
  return ok();
}

Status SrWriter::end() {
  if (!output_) return Error::infra(path_ + ": end before begin");
  HARNESS_TRY(flush());
  Status s = guarded(path_, [&]() -> Status {
    output_->receive(sigrok_context()->create_end_packet());
    return ok();
  });
  output_.reset();
  device_.reset();
  return s;
}

Result<std::shared_ptr<sigrok::Driver>> find_sigrok_driver(const std::string& name) {
  auto drivers = sigrok_context()->drivers();
  auto it = drivers.find(name);
  if (it != drivers.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [n, d] : drivers) names.push_back(n);
  std::optional<std::string> close = closest_match(name, names);
  return Error::input(fmt::format("no sigrok driver '{}'{}", name, close ? fmt::format(" (did you mean '{}'?)", *close) : ""));
}

Status sigrok_acquire(const SigrokAcquisition& acq, CaptureSink& sink) {
  const std::string what = "sigrok driver " + acq.driver;
  std::optional<PacketFeed> feed;
  Status ran = guarded(what, [&]() -> Status {
    auto ctx = sigrok_context();
    Result<std::shared_ptr<sigrok::Driver>> driver = find_sigrok_driver(acq.driver);
    if (!driver) return driver.error();
    std::map<const sigrok::ConfigKey*, Glib::VariantBase> scan_options;
    if (!acq.connection.empty())
      scan_options[sigrok::ConfigKey::CONN] = Glib::Variant<Glib::ustring>::create(acq.connection);
    auto devices = (*driver)->scan(scan_options);
    if (devices.empty())
      return Error::infra(fmt::format("{}: no device found{}", what,
                                      acq.connection.empty() ? "" : " at '" + acq.connection + "'"));
    auto device = devices.front();
    device->open();
    struct Closer {
      std::shared_ptr<sigrok::HardwareDevice> d;
      ~Closer() {
        try {
          d->close();
        } catch (...) {
        }
      }
    } closer{device};
    // Analog channels are not part of a logic capture.
    for (const auto& ch : device->channels())
      if (ch->type() != sigrok::ChannelType::LOGIC) ch->set_enabled(false);
    CaptureHeader header;
    header.channels = logic_channel_names(device);
    for (const std::string& wanted : acq.channels)
      if (std::find(header.channels.begin(), header.channels.end(), wanted) == header.channels.end()) {
        std::optional<std::string> close = closest_match(wanted, header.channels);
        return Error::input(fmt::format("{}: the device has no channel '{}'{}", what, wanted,
                                        close ? fmt::format(" (did you mean '{}'?)", *close) : ""));
      }
    header.unitsize = CaptureHeader::unitsize_for(header.channels.size());
    header.format = "sigrok:" + acq.driver;
    if (acq.samplerate > 0)
      device->config_set(sigrok::ConfigKey::SAMPLERATE,
                         Glib::Variant<guint64>::create(static_cast<guint64>(std::llround(acq.samplerate))));
    if (acq.limit_samples)
      device->config_set(sigrok::ConfigKey::LIMIT_SAMPLES, Glib::Variant<guint64>::create(acq.limit_samples));
    else if (acq.limit_msec)
      device->config_set(sigrok::ConfigKey::LIMIT_MSEC, Glib::Variant<guint64>::create(acq.limit_msec));
    for (const auto& [key, value] : acq.group_options) {
      if (key != "pattern") return Error::input(fmt::format("{}: unknown channel-group option '{}'", what, key));
      auto groups = device->channel_groups();
      auto logic = groups.find("Logic");
      if (logic == groups.end()) return Error::input(what + ": no channel group 'Logic' for the pattern");
      logic->second->config_set(sigrok::ConfigKey::PATTERN_MODE, Glib::Variant<Glib::ustring>::create(value));
    }
    header.samplerate = device_samplerate(device).value_or(0);
    auto session = ctx->create_session();
    session->add_device(device);
    if (!acq.trigger.empty()) {
      auto trigger = ctx->create_trigger("harness");
      auto stage = trigger->add_stage();
      std::string spec = acq.trigger;
      for (std::size_t start = 0; start < spec.size();) {
        std::size_t comma = spec.find(',', start);
        std::string item = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? spec.size() : comma + 1;
        std::size_t eq = item.find('=');
        std::string name = item.substr(0, eq);
        std::string kind = eq == std::string::npos ? "" : item.substr(eq + 1);
        std::shared_ptr<sigrok::Channel> channel;
        for (const auto& ch : device->channels())
          if (ch->name() == name) channel = ch;
        if (!channel) return Error::input(fmt::format("{}: trigger on unknown channel '{}'", what, name));
        const sigrok::TriggerMatchType* type = kind == "0"   ? sigrok::TriggerMatchType::ZERO
                                               : kind == "1" ? sigrok::TriggerMatchType::ONE
                                               : kind == "r" ? sigrok::TriggerMatchType::RISING
                                               : kind == "f" ? sigrok::TriggerMatchType::FALLING
                                               : kind == "e" ? sigrok::TriggerMatchType::EDGE
                                                             : nullptr;
        if (!type) return Error::input(fmt::format("{}: trigger '{}': expected <channel>=0|1|r|f|e", what, item));
        stage->add_match(channel, type);
      }
      session->set_trigger(trigger);
    }
    feed.emplace(sink, header);
    bool stopping = false;
    const std::function<bool()> stop_or_end = [&] {
      return (acq.should_stop && acq.should_stop()) || (acq.should_end && acq.should_end());
    };
    session->add_datafeed_callback([&](std::shared_ptr<sigrok::Device>, std::shared_ptr<sigrok::Packet> p) {
      on_packet(*feed, session, p, stopping, stop_or_end);
    });
    session->start();
    if (acq.on_started) {
      acq.on_started([session] {
        try {
          session->stop();
        } catch (...) {  // a session that already ended: nothing to stop
        }
      });
    }
    session->run();
    return ok();
  });
  if (!ran) return ran;
  if (acq.should_stop && acq.should_stop()) return Error::infra("interrupted");
  return feed->finish();
}

}  // namespace harness
