// A logic-analyzer capture in timing mode: N digital channels sampled at a
// fixed rate, packed little-endian (channel i is bit i of a sample) exactly as
// sigrok stores them. Captures can be far larger than memory (1G samples x 2
// bytes), so every reader pushes the samples in chunks into a CaptureSink and
// every consumer (decoder, .sr writer, info) is a sink: nothing but the
// in-memory Capture used by tests and the synthesizer holds a whole capture.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/capture/limits.h"

namespace harness {

struct CaptureHeader {
  std::vector<std::string> channels;  // channel i is bit i of a sample
  double samplerate = 0;              // Hz
  unsigned unitsize = 1;              // bytes per packed sample: 1, 2, 4 or 8
  std::string format;                 // "sr", "vcd", "saleae-binary", ...
  // Samples the capture will hold, when the reader knows before the first
  // sample (a .sr's directory, a change-based format's span): lets a sink
  // refuse a capture too large for it before anything is allocated.
  std::optional<std::uint64_t> declared_samples;
  // Per channel, the samples whose value was unknown in the file (VCD x/z,
  // Saleae CSV X); empty when the format cannot say "unknown". Those samples
  // read as the level the reader's policy gives them (readers.h).
  std::vector<std::uint64_t> unknown_samples;

  // The smallest unitsize holding `channel_count` bits (1, 2, 4 or 8).
  static unsigned unitsize_for(std::size_t channel_count);
  // Index of a channel by name, if present.
  std::optional<unsigned> find(const std::string& name) const;
};

// Receives a capture: begin once, then chunks of whole samples, then end.
// Returning an error stops the reader, which returns that error.
class CaptureSink {
 public:
  virtual ~CaptureSink() = default;
  virtual Status begin(const CaptureHeader& header) = 0;
  // `count` samples of header.unitsize bytes each.
  virtual Status samples(const std::uint8_t* data, std::size_t count) = 0;
  virtual Status end() = 0;
};

// A whole capture in memory (tests, synthesizer output, small imports).
struct Capture {
  CaptureHeader header;
  std::vector<std::uint8_t> data;  // packed samples

  std::uint64_t sample_count() const { return header.unitsize ? data.size() / header.unitsize : 0; }
  std::uint64_t sample(std::uint64_t index) const;
  double duration() const { return header.samplerate > 0 ? sample_count() / header.samplerate : 0; }
  // Pushes the capture into a sink in chunks of at most `chunk_samples`.
  Status replay(CaptureSink& sink, std::size_t chunk_samples = 1 << 20) const;
};

// Sink that keeps everything (only for captures known to be small). With
// limits it refuses a capture larger than in_memory_bytes, or than the
// process may still allocate (ulimit -v): before allocating when the header
// declares its size, else when the samples reach the limit.
class CaptureCollector : public CaptureSink {
 public:
  CaptureCollector() = default;
  // `where` (the file) and `limits.in_memory_bytes` name the error.
  CaptureCollector(std::string where, const ReaderLimits& limits) : where_(std::move(where)), limits_(limits), bounded_(true) {}
  Status begin(const CaptureHeader& header) override;
  Status samples(const std::uint8_t* data, std::size_t count) override;
  Status end() override { return ok(); }
  Capture& capture() { return capture_; }

 private:
  // The error naming in_memory_bytes (beyond it), else the address space.
  Status too_large(const std::string& what, bool beyond_reader_limit) const;
  Capture capture_;
  std::string where_;
  ReaderLimits limits_;
  bool bounded_ = false;
  std::uint64_t headroom_ = UINT64_MAX, limit_ = UINT64_MAX;
};

// Sink that only counts: for `harness capture info` on any size of capture.
class CaptureSummary : public CaptureSink {
 public:
  Status begin(const CaptureHeader& header) override { header_ = header; return ok(); }
  Status samples(const std::uint8_t*, std::size_t count) override { samples_ += count; return ok(); }
  Status end() override { return ok(); }
  const CaptureHeader& header() const { return header_; }
  std::uint64_t sample_count() const { return samples_; }

 private:
  CaptureHeader header_;
  std::uint64_t samples_ = 0;
};

// Builds a capture from value changes (VCD, Saleae exports): per channel an
// initial level and the sample indices where it toggles. Rendered into packed
// samples chunk by chunk, so only the changes are held in memory.
class ChangeTimeline {
 public:
  explicit ChangeTimeline(std::vector<std::string> channels);
  void set_initial(unsigned channel, bool level);
  // A change of `channel` to `level` at sample `index`; changes of one
  // channel must come in non-decreasing index order. Same level: ignored.
  void change(unsigned channel, std::uint64_t index, bool level);
  // From sample `index` on, `channel`'s value is unknown (x/z, no data) or
  // known again: counted into the header's unknown_samples. Non-decreasing
  // index order per channel, as for change().
  void set_unknown(unsigned channel, std::uint64_t index, bool unknown);
  // Renders samples [0, sample_count) at `samplerate`. A count beyond
  // limits.samples is refused before the sink sees anything (`where` names
  // the file). Time is proportional to the changes plus the samples handed
  // on: a run without changes is one buffer handed on again, not rebuilt.
  Status render(double samplerate, std::uint64_t sample_count, const std::string& format, const std::string& where,
                const ReaderLimits& limits, CaptureSink& sink);
  std::uint64_t last_change() const { return last_; }
  std::size_t channel_count() const { return channels_.size(); }
  // Changes held so far (toggles and unknown-state changes).
  std::uint64_t held() const { return toggles_.size() + unknown_spans_.size(); }

 private:
  struct Toggle {
    std::uint64_t index;
    std::uint64_t mask;
  };
  std::vector<std::string> channels_;
  std::uint64_t initial_ = 0;
  std::vector<std::uint64_t> level_;  // current level per channel while building
  std::vector<Toggle> toggles_;
  std::uint64_t last_ = 0;
  struct UnknownSpan {
    unsigned channel;
    std::uint64_t from, to;  // [from, to); to = UINT64_MAX: still unknown at the end
  };
  std::vector<UnknownSpan> unknown_spans_;
  std::vector<std::int64_t> open_unknown_;  // per channel: index into unknown_spans_ of an open span, or -1
};

// Where sample_index saturates: above any ReaderLimits::samples, so that a
// saturated index is always refused by render.
constexpr std::uint64_t kSampleIndexCeiling = std::uint64_t{1} << 62;
// Sample index of a time, saturating at kSampleIndexCeiling.
std::uint64_t sample_index(double seconds, double samplerate);

// From timestamps in seconds: the sample period they are integer multiples
// of (the smallest positive step), checked on every timestamp. Used when an
// export does not state its sample rate. `what` names the file in errors.
Result<double> infer_samplerate(std::vector<double> times, const std::string& what);

// Formats a sample rate as sigrok writes it: "500 MHz", "1 GHz", "250 kHz".
std::string samplerate_text(double hz);

}  // namespace harness
