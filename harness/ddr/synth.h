// The capture synthesizer: renders a command trace as the pin-level
// waveforms a logic analyzer would record (timing mode), with CK, chip
// select, the command/address pins changing away from the sampling edges,
// DQS bursts at read/write latency, clock-stop gaps and optional jitter on
// the CA transitions; the strobe as an analyzer sampling it asynchronously
// sees it (edge jitter, a constant skew against CK, duty-cycle distortion,
// ringing glitches, parked high or low). It is the ground truth of the
// decoder tests and of the fixture captures (which say they were made by
// it): SynthTruth counts what it rendered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/ddr/command.h"
#include "probes/capture/capture.h"

namespace harness::ddr {

struct SynthClockStop {
  std::uint64_t after_cycle = 0;  // CK stops after this cycle's rising edge...
  std::uint64_t cycles = 0;       // ...for this many clock periods
};

struct SynthOptions {
  Standard standard = Standard::lpddr4;
  unsigned samples_per_clock = 8;  // even, >= 4
  double tck = 10e-9;              // s (100 MHz: a slowed-down bus a logic analyzer can follow)
  unsigned read_latency = 0;       // tCK from the command to data; 0: the standard's default
  unsigned write_latency = 0;
  unsigned wck_ratio = 4;          // LPDDR5 WCK:CK, for burst durations
  unsigned dq_width = 16;
  unsigned jitter = 0;             // max samples a CA transition is moved either way
  std::uint64_t seed = 1;
  unsigned dqs_channels = 1;       // DQS0.. toggling during data bursts; 0: none
  // CK cycles of toggling preamble (one strobe pulse each) before a burst
  // that follows more than this many idle cycles; after a shorter gap the
  // strobe keeps toggling through it (pre- and postamble overlap). 0: none.
  unsigned dqs_preamble = 0;
  unsigned dq_channels = 0;        // DQ0.. carrying pseudo-random data during bursts
  std::vector<SynthClockStop> clock_stops{};
  unsigned ranks = 1;              // chip selects CS0.. (CS0_n.. for DDR4) when more than one
  bool cke = false;                // a CKE channel (DDR4, LPDDR4): needed for PDE/PDX (and DDR4 SRE/SRX)
  std::uint64_t tail_cycles = 16;  // idle cycles after the last command and burst
  std::string organisation{};      // DDR4 "x16": no BG1 channel (the trace's bank groups must be 0-1)
  // Render only these channels (roles: "CK", "CS_n", "ACT_n", "DQS0"...), as
  // a lab probing part of the bus records it; empty: all.
  std::vector<std::string> probed{};
  // The strobe as an analyzer sampling it asynchronously sees it. Each DQS
  // channel draws its own jitter and glitches (separate random numbers: the
  // CA pins and data are the same with or without them).
  unsigned dqs_jitter = 0;   // max samples each strobe edge moves either way
  double dqs_skew = 0;       // constant delay of the strobe against CK, tCK (-0.5 .. 0.5)
  unsigned dqs_duty = 50;    // percent of a strobe period spent high (40: 40/60 distortion)
  double dqs_glitches = 0;   // chance that an edge rings: the sample after it bounces back
  bool dqs_park_high = false;  // idle strobe held high: a static 1 tCK preamble low before each burst
};

// What synthesize rendered: the ground truth of the DQ-activity estimates.
struct SynthTruth {
  std::uint64_t samples = 0;
  double samplerate = 0;           // Hz
  std::uint64_t data_cycles = 0;   // CK cycles of data bursts (their union)
  std::uint64_t strobe_cycles = 0; // CK cycles the strobe toggled (data, toggling preambles, bridged gaps)
  std::uint64_t bursts = 0;        // runs of strobe cycles
  unsigned samples_per_clock = 0;
  // Data cycles x tCK over the capture's duration.
  double dq_active_ratio() const {
    return samples ? static_cast<double>(data_cycles * samples_per_clock) / static_cast<double>(samples) : 0;
  }
};

// Default latencies (tCK) used when the options say 0; documented values of
// common speed bins, only used to place DQS bursts.
unsigned default_read_latency(Standard s);
unsigned default_write_latency(Standard s);
// Data burst duration in tCK: DDR4/LPDDR4 BL/2, LPDDR5 BL/(2 x WCK ratio).
unsigned burst_cycles(Standard s, unsigned burst, unsigned wck_ratio);
// Bytes a column command moves: BL x DQ width / 8.
inline unsigned burst_bytes(unsigned burst, unsigned dq_width) { return burst * dq_width / 8; }

// The channel names of a synthesized capture: CK, the chip selects, the
// command/address pins, CKE, strobes, data.
std::vector<std::string> synth_channels(const SynthOptions& options);

// Command cycles are rising-edge indices counted from the capture's first
// rising edge (lead cycles included); they must leave room for each
// command's words. Streams the samples into `sink`; `truth`, when given,
// gets what was rendered.
Status synthesize(const std::vector<Command>& trace, const SynthOptions& options, CaptureSink& sink,
                  SynthTruth* truth = nullptr);

// The shape of the "stream" pattern: 128-byte transactions per open row,
// and the idle cycles after each (drawn evenly from gap_min..gap_max).
struct StreamShape {
  unsigned row_transactions = 4;
  unsigned gap_min = 2, gap_max = 5;
};

// Traffic patterns for tests, fixtures and the benchmark.
//  "stream"  : 128-byte reads, row hits, back-to-back bursts, periodic refresh
//  "random"  : small reads and writes to random banks and rows (misses, conflicts)
//  "mixed"   : every command the standard has, reads and writes of both burst lengths;
//              with `cke`, also DDR4/LPDDR4 power-down (and DDR4 self refresh), which
//              the synthesizer renders on a CKE channel
// `bank_groups`: DDR4 bank groups addressed (x16 parts: 2); 0: 4.
Result<std::vector<Command>> generate_traffic(Standard standard, const std::string& pattern,
                                              std::uint64_t cycles, std::uint64_t seed,
                                              unsigned wck_ratio = 4, bool cke = false, unsigned bank_groups = 0,
                                              const StreamShape& stream = {});

}  // namespace harness::ddr
