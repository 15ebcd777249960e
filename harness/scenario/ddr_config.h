// Level 3: DDR command-bus decoding. Reference: scenarios/README.md "[ddr]".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/scenario/expectation.h"
#include "probes/capture/limits.h"

namespace harness {

// [ddr.acquire]: a live capture through a sigrok driver.
struct DdrAcquireConfig {
  std::string driver;                     // "demo", "fx2lafw", ...
  std::string connection;                 // driver "conn" string, may be empty
  double samplerate = 0;                  // Hz, 0: the driver's default
  std::uint64_t samples = 0;              // sample limit (or duration)
  double duration = 0;                    // s
  std::string trigger;                    // "CK=r,CS=1"
  std::string pattern;                    // demo driver test pattern
};

// "<metric>_vs_baseline = lower|higher": relative to the baseline run.
struct DdrBaselineExpectation {
  std::string key;     // "read_interval_p50_vs_baseline"
  std::string metric;  // "ddr.read_interval_p50"
  bool lower = true;   // the current value must be lower (else higher)
  std::string where;
};

struct DdrConfig {
  std::string standard;       // "ddr4", "lpddr4", "lpddr5" (lpddr4x, lpddr5x accepted)
  std::string capture;        // a capture file to import, as written
  std::string capture_path;   // the same, resolved against the scenario's folder
  std::string format;         // capture format; empty: detect
  std::optional<double> samplerate;  // Hz, for exports that do not state it
  std::map<std::string, std::string> channels;  // role -> capture channel name
  unsigned dq_width = 16;
  unsigned wck_ratio = 4;
  bool bank_groups = false;    // LPDDR5 bank-group mode (BA2/BA3 are BG0/BG1)
  std::string organisation;    // DDR4 "x4", "x8", "x16" (x16: no BG1); empty: x4/x8
  std::vector<std::string> probed;  // roles probed; empty: every pin of the standard
  unsigned dqs_preamble = 0;   // tCK of toggling DQS preamble per strobe envelope (0: none declared)
  unsigned read_latency = 0;   // tCK, 0: the standard's default
  unsigned write_latency = 0;
  double timeline_window = 1e-6;  // s
  unsigned jobs = 0;              // threads inflating a .sr capture; 0: one per core
  unsigned decode_threads = 0;    // 1 or 2 (ddr::decode_on_two_threads); 0: 2 with 4 cores or more, unless jobs = 1
  ReaderLimits reader_limits;     // [ddr.reader_limits]: what the capture may declare
  std::optional<DdrAcquireConfig> acquire;
  std::vector<Expectation> expectations;
  std::vector<DdrBaselineExpectation> baseline_expectations;
};

}  // namespace harness
