// Physical quantities written in scenario files ("30 TOPS", "50 GB/s",
// "1 GHz", "128 B", "60 s") parsed into SI values, and formatted back.
#pragma once

#include <string>
#include <string_view>

#include "harness/base/result.h"

namespace harness {

enum class Dimension {
  compute,    // operations per second (OPS, FLOPS, TOPS, GFLOP/s ...)
  bandwidth,  // bytes per second (GB/s, GiB/s ...)
  frequency,  // hertz
  size,       // bytes (B, KiB, MB ...)
  time,       // seconds (ns, us, ms, s, min)
  power,      // watts
  energy,     // joules
};

// "a bandwidth", "a time": used in error messages.
std::string_view dimension_noun(Dimension d);
// An example a user could write: "50 GB/s".
std::string_view dimension_example(Dimension d);
// The SI unit stored with metrics: "B/s", "op/s", "Hz", "B", "s", "W", "J".
std::string_view si_unit(Dimension d);

struct Quantity {
  double value = 0;  // in the SI unit of its dimension
  Dimension dimension = Dimension::size;
};

// Parses "<number> <unit>" (the space is optional). Decimal prefixes are
// powers of 1000, binary prefixes (KiB, MiB, GiB, TiB) powers of 1024.
Result<Quantity> parse_quantity(std::string_view text);
// Parses and checks the dimension, and that the figure is no larger than
// largest_quantity (a device's figure, not a typo); the error says what was
// expected.
Result<double> parse_quantity(std::string_view text, Dimension expected);
// The largest figure of a dimension anything may state (input_limits.h).
double largest_quantity(Dimension d);

// Human formatting with an engineering prefix: 3.1e10 B/s -> "31.0 GB/s".
std::string format_quantity(double value_in_si, std::string_view unit);

}  // namespace harness
