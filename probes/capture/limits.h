// How much a capture reader accepts before it refuses the input. A few bytes
// of VCD, Saleae export or ZIP directory can declare a 2^31-bit wire, a span
// of 2^40 samples or terabytes of inflated data; every reader checks what an
// input declares against these limits (and, where the format allows, against
// what the input's size can encode) before it allocates or loops, and refuses
// the excess as bad input (exit 2) with an error naming the file and the
// limit. All limits live here, in one struct with one table describing them;
// a lab with bigger captures raises them (`--reader-limit NAME=N`, scenario
// `[ddr.reader_limits]`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "harness/base/result.h"

namespace harness {

struct ReaderLimits {
  // Samples a capture may hold, whatever the format: 4 Gi samples, four times
  // the 1G-sample capture the benchmark decodes (about 3 s of decoding at the
  // decoder's 1.3 G samples/s), far beyond what a DDR capture of a workload
  // window needs. Change-based formats (VCD, Saleae) can span any number of
  // samples in a few bytes, so this is their only bound.
  std::uint64_t samples = std::uint64_t{1} << 32;
  // Bytes of a file read whole into memory (VCD, Saleae CSV and binary,
  // state listings): 1 GiB.
  std::uint64_t file_bytes = std::uint64_t{1} << 30;
  // Bits of one VCD variable: 64 Ki (ILA and RTL dumps have buses of a few
  // thousand bits at most).
  std::uint64_t signal_bits = std::uint64_t{1} << 16;
  // Bits of all VCD variables together (each gets a name): 256 Ki.
  std::uint64_t declared_bits = std::uint64_t{1} << 18;
  // Value changes held while a change-based file is read (about 32 bytes
  // each): 64 Mi, 2 GiB at most.
  std::uint64_t changes = std::uint64_t{1} << 26;
  // .sr: inflated bytes of one chunk entry (libsigrok writes a few MiB, the
  // harness's writer 64 MiB): 4 GiB.
  std::uint64_t entry_bytes = std::uint64_t{1} << 32;
  // .sr: inflated bytes of all chunk entries together: 32 GiB (4 Gi samples
  // of 8 bytes).
  std::uint64_t inflated_bytes = std::uint64_t{1} << 35;
  // Bytes of samples `capture decode --in-memory` loads: 4 GiB.
  std::uint64_t in_memory_bytes = std::uint64_t{1} << 32;
};

struct ReaderLimit {
  std::string_view name;  // as given to set_reader_limit
  std::uint64_t ReaderLimits::*field;
  std::string_view unit;  // "samples", "bytes", "bits", "changes"
  std::string_view what;  // what it bounds, for help texts
};

// The table of limits, in the order of the struct.
std::span<const ReaderLimit> reader_limit_table();

// "NAME=VALUE" (VALUE: a whole number, optionally with a binary suffix Ki,
// Mi, Gi, Ti, or 2^N): sets one limit; an unknown name lists the known ones.
Status set_reader_limit(ReaderLimits& limits, std::string_view assignment);

// Bytes this process may still map under its address-space limit
// (RLIMIT_AS, `ulimit -v`), less a margin for the reader's own buffers and
// threads; UINT64_MAX when there is no such limit. A buffer sized from what
// a capture declares is compared with it (and with its reader limit)
// before it is allocated.
std::uint64_t address_space_headroom();
// The limit as text: "2048000000 bytes (ulimit -v 2000000)".
std::string address_space_limit_text();

// The error for an input beyond a limit: "<where>: <what>, more than the
// reader limit NAME = VALUE UNIT".
Error limit_exceeded(const std::string& where, const std::string& what, std::uint64_t ReaderLimits::*field,
                     const ReaderLimits& limits);

}  // namespace harness
