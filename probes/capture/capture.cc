#include "probes/capture/capture.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace harness {

unsigned CaptureHeader::unitsize_for(std::size_t channel_count) {
  if (channel_count <= 8) return 1;
  if (channel_count <= 16) return 2;
  if (channel_count <= 32) return 4;
  return 8;
}

std::optional<unsigned> CaptureHeader::find(const std::string& name) const {
  for (unsigned i = 0; i < channels.size(); ++i)
    if (channels[i] == name) return i;
  return std::nullopt;
}

std::uint64_t Capture::sample(std::uint64_t index) const {
  std::uint64_t v = 0;
  std::memcpy(&v, data.data() + index * header.unitsize, header.unitsize);
  return v;
}

Status Capture::replay(CaptureSink& sink, std::size_t chunk_samples) const {
  HARNESS_TRY(sink.begin(header));
  const std::uint64_t n = sample_count();
  for (std::uint64_t at = 0; at < n; at += chunk_samples) {
    std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_samples, n - at));
    HARNESS_TRY(sink.samples(data.data() + at * header.unitsize, count));
  }
  return sink.end();
}

// Loading is bounded twice: by the reader limit in_memory_bytes and by what
// the process may still map (ulimit -v), each checked before the bytes are
// allocated; the error names the limit and the way around it.
Status CaptureCollector::too_large(const std::string& what, bool beyond_reader_limit) const {
  constexpr const char* kStream = "; without --in-memory the capture is decoded as it streams, in bounded memory";
  if (beyond_reader_limit) {
    Error e = limit_exceeded(where_, what, &ReaderLimits::in_memory_bytes, limits_);
    e.message += kStream;
    return e;
  }
  return Error::input(fmt::format("{}: {}, more than this process may allocate (address-space limit {}, {} bytes "
                                  "left for samples){}",
                                  where_, what, address_space_limit_text(), headroom_, kStream));
}

Status CaptureCollector::begin(const CaptureHeader& header) {
  capture_.header = header;
  capture_.data.clear();
  if (!bounded_) return ok();
  headroom_ = address_space_headroom();
  limit_ = std::min<std::uint64_t>(limits_.in_memory_bytes, headroom_);
  if (!header.declared_samples) return ok();
  const std::uint64_t unit = std::max(1u, header.unitsize);
  if (*header.declared_samples > limit_ / unit)
    return too_large(fmt::format("{} samples of {} bytes to load into memory", *header.declared_samples,
                                 header.unitsize),
                     *header.declared_samples > limits_.in_memory_bytes / unit);
  capture_.data.reserve(static_cast<std::size_t>(*header.declared_samples * unit));
  return ok();
}

Status CaptureCollector::samples(const std::uint8_t* data, std::size_t count) {
  const std::size_t bytes = count * capture_.header.unitsize;
  std::vector<std::uint8_t>& v = capture_.data;
  if (bounded_) {
    const std::uint64_t total = v.size() + static_cast<std::uint64_t>(bytes);
    if (total > limit_)
      return too_large("the samples loaded into memory reach " + std::to_string(total) + " bytes",
                       total > limits_.in_memory_bytes);
    // Grow within the limit: doubling past it would fail to allocate.
    if (total > v.capacity()) v.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(limit_, 2 * total)));
  }
  v.insert(v.end(), data, data + bytes);
  return ok();
}

ChangeTimeline::ChangeTimeline(std::vector<std::string> channels)
    : channels_(std::move(channels)), level_(channels_.size(), 0), open_unknown_(channels_.size(), -1) {}

void ChangeTimeline::set_initial(unsigned channel, bool level) {
  std::uint64_t bit = std::uint64_t{1} << channel;
  initial_ = level ? (initial_ | bit) : (initial_ & ~bit);
  level_[channel] = level;
}

void ChangeTimeline::change(unsigned channel, std::uint64_t index, bool level) {
  if (level_[channel] == static_cast<std::uint64_t>(level)) return;
  level_[channel] = level;
  toggles_.push_back({index, std::uint64_t{1} << channel});
  last_ = std::max(last_, index);
}

void ChangeTimeline::set_unknown(unsigned channel, std::uint64_t index, bool unknown) {
  std::int64_t& open = open_unknown_[channel];
  if (unknown == (open >= 0)) return;
  if (unknown) {
    open = static_cast<std::int64_t>(unknown_spans_.size());
    unknown_spans_.push_back({channel, index, UINT64_MAX});
  } else {
    unknown_spans_[static_cast<std::size_t>(open)].to = index;
    open = -1;
  }
}

Status ChangeTimeline::render(double samplerate, std::uint64_t sample_count, const std::string& format,
                              const std::string& where, const ReaderLimits& limits, CaptureSink& sink) {
  if (sample_count > limits.samples)
    return limit_exceeded(where,
                          sample_count >= kSampleIndexCeiling
                              ? fmt::format("the timestamps span more than 2^62 samples at {}",
                                            samplerate_text(samplerate))
                              : fmt::format("the timestamps span {} samples at {}", sample_count,
                                            samplerate_text(samplerate)),
                          &ReaderLimits::samples, limits);
  std::stable_sort(toggles_.begin(), toggles_.end(),
                   [](const Toggle& a, const Toggle& b) { return a.index < b.index; });
  CaptureHeader header;
  header.channels = channels_;
  header.samplerate = samplerate;
  header.unitsize = CaptureHeader::unitsize_for(channels_.size());
  header.format = format;
  header.declared_samples = sample_count;
  if (!unknown_spans_.empty()) {
    header.unknown_samples.assign(channels_.size(), 0);
    for (const UnknownSpan& u : unknown_spans_) {
      const std::uint64_t to = std::min(u.to, sample_count), from = std::min(u.from, to);
      header.unknown_samples[u.channel] += to - from;
    }
  }
  HARNESS_TRY(sink.begin(header));
  const unsigned unit = header.unitsize;
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<std::uint8_t> buffer(kChunk * unit);
  std::uint64_t value = initial_;
  std::size_t next = 0;
  // The buffer holds `value` throughout (a chunk without changes): handed on
  // again as it is, so a long quiet stretch costs the sink's time only.
  bool uniform = false;
  for (std::uint64_t at = 0; at < sample_count; at += kChunk) {
    std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, sample_count - at));
    const bool quiet = next >= toggles_.size() || toggles_[next].index >= at + count;
    if (!(quiet && uniform)) {
      for (std::size_t i = 0; i < count; ++i) {
        while (next < toggles_.size() && toggles_[next].index <= at + i) value ^= toggles_[next++].mask;
        std::memcpy(buffer.data() + i * unit, &value, unit);
      }
      uniform = quiet && count == kChunk;
    }
    HARNESS_TRY(sink.samples(buffer.data(), count));
  }
  return sink.end();
}

std::uint64_t sample_index(double seconds, double samplerate) {
  const double v = seconds * samplerate;
  if (!(v >= 0)) return 0;
  if (v >= static_cast<double>(kSampleIndexCeiling)) return kSampleIndexCeiling;
  return static_cast<std::uint64_t>(std::llround(v));
}

Result<double> infer_samplerate(std::vector<double> times, const std::string& what) {
  std::sort(times.begin(), times.end());
  double step = 0;
  for (std::size_t i = 1; i < times.size(); ++i) {
    double d = times[i] - times[i - 1];
    if (d > 0 && (step == 0 || d < step)) step = d;
  }
  if (step <= 0)
    return Error::input(fmt::format("{}: too few changes to infer the sample rate; pass --samplerate", what));
  // Every timestamp must sit on the grid, else the smallest step is not the
  // sample period and any rate chosen here would be invented.
  for (double t : times) {
    double k = (t - times.front()) / step;
    if (std::abs(k - std::round(k)) > 0.01)
      return Error::input(fmt::format(
          "{}: timestamps are not multiples of one sample period (t = {:.12g} s vs step {:.6g} s); "
          "pass --samplerate",
          what, t, step));
  }
  double rate = 1.0 / step;
  // Timestamps printed in decimal lose the last digits: round to 6 figures.
  double scale = std::pow(10.0, std::floor(std::log10(rate)) - 5);
  return std::round(rate / scale) * scale;
}

std::string samplerate_text(double hz) {
  auto whole = [](double v) { return std::abs(v - std::round(v)) < 1e-9 * std::max(1.0, v); };
  if (hz >= 1e9 && whole(hz / 1e9)) return fmt::format("{} GHz", std::llround(hz / 1e9));
  if (hz >= 1e6 && whole(hz / 1e6)) return fmt::format("{} MHz", std::llround(hz / 1e6));
  if (hz >= 1e3 && whole(hz / 1e3)) return fmt::format("{} kHz", std::llround(hz / 1e3));
  return fmt::format("{} Hz", std::llround(hz));
}

}  // namespace harness
