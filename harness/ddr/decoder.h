// The DDR decoding pipeline: capture samples -> Sampler -> command words ->
// CommandAssembler -> commands, streamed to a CommandSink so that a capture
// of any length is decoded in bounded memory.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/ddr/command.h"
#include "harness/ddr/encoding.h"
#include "harness/ddr/sampler.h"
#include "probes/capture/capture.h"
#include "probes/capture/readers.h"
#include "probes/capture/state_listing.h"

namespace harness::ddr {

class CommandSink {
 public:
  virtual ~CommandSink() = default;
  virtual void on_commands(std::span<const Command> commands) = 0;
};

class CommandCollector : public CommandSink {
 public:
  void on_commands(std::span<const Command> c) override { commands.insert(commands.end(), c.begin(), c.end()); }
  std::vector<Command> commands;
};

struct DecodeOptions {
  Standard standard = Standard::lpddr4;
  std::map<std::string, std::string> roles;  // role -> channel name
  double window = 1e-6;                       // s, DQS activity timeline windows
  // LPDDR5 in bank-group mode (4 bank groups x 4 banks): the BA2/BA3 pins
  // are BG0/BG1. Without it LPDDR5 banks are numbered 0-15.
  bool bank_groups = false;
  // DDR4 organisation and the pins that were probed (sampler.h): fields the
  // probed pins do not determine are marked unknown in each command.
  ProbeSet probes = {};
  // tCK of toggling DQS preamble before each strobe burst (LPDDR4 RD-PRE
  // toggle mode, LPDDR5 toggling RDQS preamble): the mode register says so,
  // the bus does not. 0: none (a static preamble does not toggle).
  unsigned dqs_preamble = 0;
  // Decode on two threads: the caller's samples the bus (clock edges,
  // strobes, the cycles that carry commands) and a second one turns those
  // cycles into commands and feeds the sink (which then runs on it). Each
  // stage runs in order, so the results are the same as on one thread.
  // For a host with a core to spare beside the readers' threads.
  bool two_threads = false;
};

// What the decoder learned about the bus besides the commands.
struct BusTiming {
  Standard standard = Standard::lpddr4;
  std::string format;       // capture format
  double samplerate = 0;    // Hz (0 for a state listing)
  std::uint64_t samples = 0;
  std::uint64_t cycles = 0;
  double duration = 0;      // s
  double tck = 0;           // s, mean clock period outside clock stops
  std::vector<ClockStop> clock_stops;
  bool dqs_sampled = false;
  StrobeFigures strobes;             // DQ activity from the strobes (strobe.h), when sampled
  double window = 0;                 // s
  std::vector<double> dqs_timeline;  // active fraction of each window
  // The decoded channels whose value the file gave as unknown (VCD x/z,
  // Saleae X) for some samples, and how many: those samples held the last
  // known level (readers.h), so commands there may be wrong.
  std::map<std::string, std::uint64_t> unknown_samples;
  ProbeCoverage coverage;            // what the probed pins determine
  std::vector<RoleMatch> roles;      // each role's channel and how it was found
  std::vector<std::string> strobe_channels;  // the DQS/RDQS channels read
};

// Edge groups -> commands: assembles command words, names the rank whose
// chip select was active, turns CKE changes into power-down and self-refresh
// entry/exit (DDR4: REF with CKE falling is SRE; LPDDR4 signals self refresh
// with commands, so CKE is only power-down there), applies LPDDR5 bank-group
// mode.
class EdgeDecoder {
 public:
  EdgeDecoder(const BusLayout& layout, const DecodeOptions& options);
  void add(std::uint64_t cycle, double time, std::uint64_t first, std::uint64_t second, CkeChange cke,
           std::vector<Command>& out) {
    if (plain_ && cke == CkeChange::none) return assembler_.add(cycle, time, layout_.word(first, second), out);
    add_with_rank_and_cke(cycle, time, first, second, cke, out);
  }
  // The groups of a slice of samples, in order (`period`: seconds per sample).
  void add(std::span<const EdgeGroup> groups, double period, std::vector<Command>& out);
  void finish(std::vector<Command>& out) { assembler_.finish(out); }

 private:
  void add_with_rank_and_cke(std::uint64_t cycle, double time, std::uint64_t first, std::uint64_t second,
                             CkeChange cke, std::vector<Command>& out);
  void mark_unknown(Command& c) const;
  const BusLayout& layout_;
  bool bank_groups_;
  bool partial_;  // some pin not probed: commands get their unknown fields marked
  bool plain_;  // one rank, no bank-group split, every pin probed: words go straight to the assembler
  CommandAssembler assembler_;
  bool self_refresh_ = false;
  std::unique_ptr<TimedWord[]> words_;  // plain words waiting to be assembled together
  std::size_t words_capacity_ = 0;
};

// DecodeOptions::two_threads for `requested` decoding threads (1 or 2; 0:
// the default) beside a reader of `reader_jobs` threads (ReadOptions::jobs).
// The default is two where the host has 4 cores or more, so that the readers
// keep theirs, and one when jobs is 1 (everything on one thread).
bool decode_on_two_threads(unsigned requested, unsigned reader_jobs);

// CPU seconds of each stage of a decode on two threads (DecodeOptions::
// two_threads): what each would take on a core of its own.
struct StageSeconds {
  double sampling = 0;  // the caller's thread: samples to command cycles
  double commands = 0;  // the second thread: commands and the sink
};

// BusDecoder's slices, in samples: each is sampled whole, then its command
// cycles go to commands and the sink. Each switch between the stages costs
// them their caches and branch history, so fewer switches win over the
// slice's groups and commands staying in L2. Measured (decode + statistics
// from memory, 100M LPDDR4 samples): 2^16 76.5 ms, 2^18 75.5, 2^20 72.7,
// 2^21 74.1, 2^22 77. A slice holds at most 2^18 groups (4 samples per
// clock at least): 10 MiB, and 14 MiB of their commands.
constexpr std::size_t kDecodeSlice = std::size_t{1} << 20;

// A CaptureSink that decodes as the samples arrive.
class BusDecoder : public CaptureSink {
 public:
  BusDecoder(DecodeOptions options, CommandSink& commands);
  ~BusDecoder() override;
  Status begin(const CaptureHeader& header) override;
  Status samples(const std::uint8_t* data, std::size_t count) override;
  Status end() override;
  const BusTiming& timing() const { return timing_; }
  // After end(), on two threads only.
  std::optional<StageSeconds> stage_seconds() const { return stage_seconds_; }

 private:
  class CommandThread;  // decoder.cc
  DecodeOptions options_;
  CommandSink& sink_;
  CaptureHeader header_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<EdgeDecoder> edges_;
  std::unique_ptr<CommandThread> command_thread_;
  std::vector<EdgeGroup> groups_;
  std::vector<Command> batch_;
  BusTiming timing_;
  double sampling_seconds_ = 0;
  std::optional<StageSeconds> stage_seconds_;
};

// Reads and decodes a capture file of any supported format.
Result<BusTiming> decode_capture_file(const std::string& path, const ReadOptions& read, const DecodeOptions& options,
                                      CommandSink& commands);
// A state listing skips the sampler: its rows are the clock edges.
Result<BusTiming> decode_state_listing(const StateListing& listing, const DecodeOptions& options,
                                       CommandSink& commands);

}  // namespace harness::ddr
