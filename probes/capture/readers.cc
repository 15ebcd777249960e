#include "probes/capture/readers.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/base/closest_match.h"
#include "harness/base/files.h"

#include "probes/capture/formats.h"
#include "probes/capture/sigrok.h"
#include "probes/capture/srzip_reader.h"
#include "probes/capture/state_listing.h"

namespace harness {

Result<std::string> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::input(fmt::format("{}: {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::function<Result<ChannelPlan>(const std::vector<std::string>&)> plan_named_channels(std::vector<std::string> names) {
  return [names = std::move(names)](const std::vector<std::string>& channels) -> Result<ChannelPlan> {
    ChannelPlan plan;
    for (const std::string& n : names) {
      auto it = std::find(channels.begin(), channels.end(), n);
      if (it == channels.end()) {
        std::optional<std::string> close = closest_match(n, channels);
        return Error::input(fmt::format("no channel '{}'{}", n, close ? fmt::format(" (did you mean '{}'?)", *close) : ""));
      }
      plan.keep.push_back(static_cast<unsigned>(it - channels.begin()));
    }
    std::sort(plan.keep.begin(), plan.keep.end());
    plan.keep.erase(std::unique(plan.keep.begin(), plan.keep.end()), plan.keep.end());
    return plan;
  };
}

Result<ChannelChoice> choose_channels(const std::vector<std::string>& file_channels, const ReadOptions& options,
                                      const std::string& where) {
  ChannelPlan plan;
  if (options.plan_channels) {
    Result<ChannelPlan> p = options.plan_channels(file_channels);
    if (!p) return p.error().message.rfind(where, 0) == 0 ? p.error() : p.error().within(where);
    plan = std::move(*p);
  }
  ChannelChoice c;
  c.index.assign(file_channels.size(), kNotRead);
  if (plan.keep.empty()) {
    if (file_channels.size() > 64)
      return Error::input(fmt::format("{}: {} one-bit signals, more than the 64 a capture holds: name the ones to read "
                                      "(capture info/convert --channels; decode reads those its roles use)",
                                      where, file_channels.size()));
    for (unsigned i = 0; i < file_channels.size(); ++i) plan.keep.push_back(i);
  }
  if (plan.keep.size() > 64)
    return Error::input(fmt::format("{}: {} channels chosen, more than the 64 a capture holds", where, plan.keep.size()));
  for (unsigned k : plan.keep) {
    if (k >= file_channels.size() || c.index[k] != kNotRead)
      return Error::infra(fmt::format("{}: channel plan names channel {} twice or out of range", where, k));
    c.index[k] = static_cast<unsigned>(c.names.size());
    c.names.push_back(file_channels[k]);
  }
  for (unsigned h : plan.idle_high)
    if (h < c.index.size() && c.index[h] != kNotRead) c.idle_high.push_back(c.index[h]);
  return c;
}

Result<std::string> read_input_file(const std::string& path, const ReaderLimits& limits) {
  // The rule for every file the harness reads (harness/base/files.h), the
  // size held to the reader limit.
  Result<RegularFile> file = open_regular_file(path);
  if (!file) return file.error();
  if (file->size() > limits.file_bytes)
    return limit_exceeded(path, fmt::format("{} bytes to read", file->size()), &ReaderLimits::file_bytes, limits);
  return read_regular_file(path, limits.file_bytes);
}

Result<std::string> detect_capture_format(const std::string& path) {
  Result<const CaptureFormat*> f = recognise_capture(path);
  if (!f) return f.error();
  return std::string((*f)->name);
}

namespace {

// libsigrok reads the archive itself (after check_sr, the direct reader's
// checks of its structure): its samples are counted against the limit as
// they arrive.
class SampleLimitSink : public CaptureSink {
 public:
  SampleLimitSink(CaptureSink& next, const std::string& where, const ReaderLimits& limits)
      : next_(next), where_(where), limits_(limits) {}
  Status begin(const CaptureHeader& header) override { return next_.begin(header); }
  Status samples(const std::uint8_t* data, std::size_t count) override {
    seen_ += count;
    if (seen_ > limits_.samples)
      return limit_exceeded(where_, fmt::format("libsigrok delivered {} samples", seen_), &ReaderLimits::samples,
                            limits_);
    return next_.samples(data, count);
  }
  Status end() override { return next_.end(); }

 private:
  CaptureSink& next_;
  const std::string& where_;
  const ReaderLimits& limits_;
  std::uint64_t seen_ = 0;
};

}  // namespace

// sigrok's .sr: read directly (srzip_reader.h) or through libsigrok.
Status read_sr_file(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  if (options.sr_reader.empty() || options.sr_reader == "direct") return read_sr(path, options, sink);
  if (options.sr_reader == "libsigrok") {
    HARNESS_TRY(check_sr(path, options.limits));
    SampleLimitSink bounded(sink, path, options.limits);
    return read_sr_libsigrok(path, bounded);
  }
  return Error::input(fmt::format("unknown .sr reader '{}' (direct, libsigrok)", options.sr_reader));
}

Status read_capture(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  Result<const CaptureFormat*> format =
      options.format.empty() ? recognise_capture(path) : capture_format_named(options.format, "format");
  if (!format) return format.error();
  return (*format)->read(path, options, sink);
}

}  // namespace harness
