// A state-mode listing: one row per CK edge, as a protocol or logic analyzer
// in state mode (sampling on the DRAM clock through an interposer) exports
// it. The harness's text form:
//
//   # comments
//   time_s,edge,CS,CA0,CA1,...
//   0.000000010,R,1,0,1,...
//   0.000000015,F,1,1,1,...
//
// `edge` is R (CK rising) or F (CK falling); values are 0 or 1. A listing
// with only R rows is fine for single-data-rate command buses. Read leniently
// too: a UTF-8 byte order mark, CRLF, blanks or quotes around fields, the
// header words in any case, edges r/f/rise/fall/rising/falling, values H/L.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/capture/capture.h"

namespace harness {

struct StateRow {
  double time = 0;  // s
  bool rising = true;
  std::uint64_t bits = 0;  // bit i: channels[i]
};

struct StateListing {
  std::vector<std::string> channels;
  std::vector<StateRow> rows;
};

Result<StateListing> parse_state_listing(std::string_view text, const std::string& name);
std::string format_state_listing(const StateListing& listing);

// Renders the listing as a timing capture with a "CK" channel (added when the
// listing has none) at `samples_per_clock`, each row's values held from the
// midpoint before its edge to the midpoint after it. `where` (the file) and
// `limits` bound the samples rendered (a row far in the future is refused).
Status render_state_listing(const StateListing& listing, unsigned samples_per_clock, CaptureSink& sink,
                            const std::string& where = "state listing", const ReaderLimits& limits = {});

}  // namespace harness
