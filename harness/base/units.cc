#include "harness/base/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <fmt/compile.h>
#include <fmt/format.h>

#include "harness/base/input_limits.h"

namespace harness {
namespace {

struct UnitEntry {
  std::string_view symbol;
  Dimension dimension;
  double scale;
};

// Every unit a scenario may use. Symbols are case-sensitive where SI says so
// (ms vs Ms is not a real ambiguity here, but mW vs MW is).
constexpr std::array kUnits = {
    // compute
    UnitEntry{"OPS", Dimension::compute, 1}, UnitEntry{"op/s", Dimension::compute, 1},
    UnitEntry{"kOPS", Dimension::compute, 1e3}, UnitEntry{"MOPS", Dimension::compute, 1e6},
    UnitEntry{"GOPS", Dimension::compute, 1e9}, UnitEntry{"TOPS", Dimension::compute, 1e12},
    UnitEntry{"POPS", Dimension::compute, 1e15},
    UnitEntry{"GOP/s", Dimension::compute, 1e9}, UnitEntry{"TOP/s", Dimension::compute, 1e12},
    UnitEntry{"FLOPS", Dimension::compute, 1}, UnitEntry{"flop/s", Dimension::compute, 1},
    UnitEntry{"kFLOPS", Dimension::compute, 1e3}, UnitEntry{"MFLOPS", Dimension::compute, 1e6},
    UnitEntry{"GFLOPS", Dimension::compute, 1e9}, UnitEntry{"TFLOPS", Dimension::compute, 1e12},
    UnitEntry{"PFLOPS", Dimension::compute, 1e15},
    UnitEntry{"GFLOP/s", Dimension::compute, 1e9}, UnitEntry{"TFLOP/s", Dimension::compute, 1e12},
    // bandwidth
    UnitEntry{"B/s", Dimension::bandwidth, 1}, UnitEntry{"kB/s", Dimension::bandwidth, 1e3},
    UnitEntry{"KB/s", Dimension::bandwidth, 1e3}, UnitEntry{"MB/s", Dimension::bandwidth, 1e6},
    UnitEntry{"GB/s", Dimension::bandwidth, 1e9}, UnitEntry{"TB/s", Dimension::bandwidth, 1e12},
    UnitEntry{"KiB/s", Dimension::bandwidth, 1024.0},
    UnitEntry{"MiB/s", Dimension::bandwidth, 1024.0 * 1024},
    UnitEntry{"GiB/s", Dimension::bandwidth, 1024.0 * 1024 * 1024},
    UnitEntry{"TiB/s", Dimension::bandwidth, 1024.0 * 1024 * 1024 * 1024},
    // frequency
    UnitEntry{"Hz", Dimension::frequency, 1}, UnitEntry{"kHz", Dimension::frequency, 1e3},
    UnitEntry{"MHz", Dimension::frequency, 1e6}, UnitEntry{"GHz", Dimension::frequency, 1e9},
    // size
    UnitEntry{"B", Dimension::size, 1}, UnitEntry{"kB", Dimension::size, 1e3},
    UnitEntry{"KB", Dimension::size, 1e3}, UnitEntry{"MB", Dimension::size, 1e6},
    UnitEntry{"GB", Dimension::size, 1e9}, UnitEntry{"TB", Dimension::size, 1e12},
    UnitEntry{"KiB", Dimension::size, 1024.0}, UnitEntry{"MiB", Dimension::size, 1024.0 * 1024},
    UnitEntry{"GiB", Dimension::size, 1024.0 * 1024 * 1024},
    UnitEntry{"TiB", Dimension::size, 1024.0 * 1024 * 1024 * 1024},
    // time
    UnitEntry{"ps", Dimension::time, 1e-12}, UnitEntry{"ns", Dimension::time, 1e-9},
    UnitEntry{"us", Dimension::time, 1e-6}, UnitEntry{"\xC2\xB5s", Dimension::time, 1e-6},
    UnitEntry{"ms", Dimension::time, 1e-3}, UnitEntry{"s", Dimension::time, 1},
    UnitEntry{"min", Dimension::time, 60}, UnitEntry{"h", Dimension::time, 3600},
    // power
    UnitEntry{"uW", Dimension::power, 1e-6}, UnitEntry{"mW", Dimension::power, 1e-3},
    UnitEntry{"W", Dimension::power, 1}, UnitEntry{"kW", Dimension::power, 1e3},
    // energy
    UnitEntry{"nJ", Dimension::energy, 1e-9}, UnitEntry{"uJ", Dimension::energy, 1e-6},
    UnitEntry{"mJ", Dimension::energy, 1e-3}, UnitEntry{"J", Dimension::energy, 1},
    UnitEntry{"kJ", Dimension::energy, 1e3},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// What each dimension is called, an example of it, its SI unit and the
// largest figure of it anything may state (input_limits.h).
struct DimensionFacts {
  std::string_view noun, example, si_unit;
  double largest;
};

DimensionFacts facts(Dimension d) {
  switch (d) {
    case Dimension::compute: return {"a compute rate", "\"30 TOPS\"", "op/s", kMaxComputeRate};
    case Dimension::bandwidth: return {"a bandwidth", "\"50 GB/s\"", "B/s", kMaxBandwidth};
    case Dimension::frequency: return {"a frequency", "\"1 GHz\"", "Hz", kMaxFrequency};
    case Dimension::size: return {"a size", "\"128 B\"", "B", kMaxSize};
    case Dimension::time: return {"a time", "\"60 s\"", "s", kMaxTime};
    case Dimension::power: return {"a power", "\"5 W\"", "W", kMaxPower};
    case Dimension::energy: return {"an energy", "\"2 J\"", "J", kMaxEnergy};
  }
  return {"a quantity", "", "", 0};
}

}  // namespace

std::string_view dimension_noun(Dimension d) { return facts(d).noun; }
std::string_view dimension_example(Dimension d) { return facts(d).example; }
std::string_view si_unit(Dimension d) { return facts(d).si_unit; }
double largest_quantity(Dimension d) { return facts(d).largest; }

Result<Quantity> parse_quantity(std::string_view text) {
  std::string_view s = trim(text);
  double number = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || end == s.data()) {
    return Error::input(fmt::format("expected a number followed by a unit, got \"{}\"", text));
  }
  if (!std::isfinite(number)) {
    return Error::input(fmt::format("\"{}\" is not a finite number", text));
  }
  std::string_view unit = trim(std::string_view(end, s.data() + s.size() - end));
  if (unit.empty()) {
    return Error::input(fmt::format("\"{}\" has no unit", text));
  }
  for (const UnitEntry& u : kUnits) {
    if (u.symbol != unit) continue;
    if (!std::isfinite(number * u.scale)) return Error::input(fmt::format("\"{}\" is not a finite number", text));
    return Quantity{number * u.scale, u.dimension};
  }
  return Error::input(fmt::format("unknown unit \"{}\" in \"{}\"", unit, text));
}

Result<double> parse_quantity(std::string_view text, Dimension expected) {
  Result<Quantity> q = parse_quantity(text);
  if (!q) {
    return Error::input(fmt::format("expected {} such as {}: {}", dimension_noun(expected),
                                    dimension_example(expected), q.error().message));
  }
  if (q->dimension != expected) {
    return Error::input(fmt::format("expected {} such as {}, got \"{}\", which is {}",
                                    dimension_noun(expected), dimension_example(expected),
                                    text, dimension_noun(q->dimension)));
  }
  if (q->value < 0) {
    return Error::input(fmt::format("\"{}\" is negative", text));
  }
  if (const double most = largest_quantity(expected); q->value > most) {
    return Error::input(fmt::format("\"{}\" is more than {}, beyond any device (the limits of "
                                    "harness/base/input_limits.h)", text, format_quantity(most, si_unit(expected))));
  }
  return q->value;
}

// The formats are compiled (FMT_COMPILE), so that their text is not parsed
// at each call: `history` formats one per point, 100,000 for a long history.
std::string format_quantity(double v, std::string_view unit) {
  if (!std::isfinite(v)) return fmt::format("{} {}", v, unit);
  if (unit == "s") {
    double a = std::fabs(v);
    if (a == 0) return "0 s";
    if (a < 1e-6) return fmt::format(FMT_COMPILE("{:.3g} ns"), v * 1e9);
    if (a < 1e-3) return fmt::format(FMT_COMPILE("{:.3g} us"), v * 1e6);
    if (a < 1) return fmt::format(FMT_COMPILE("{:.4g} ms"), v * 1e3);
    return fmt::format(FMT_COMPILE("{:.4g} s"), v);
  }
  static constexpr std::array<std::pair<double, const char*>, 6> kPrefixes = {{
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}}};
  double a = std::fabs(v);
  const bool prefixable = !unit.empty() && unit != "1" && unit != "%" && unit.rfind("1/", 0) != 0;
  if (a >= 1 && prefixable) {
    for (auto [scale, prefix] : kPrefixes) {
      if (a >= scale) return fmt::format(FMT_COMPILE("{:.4g} {}{}"), v / scale, prefix, unit);
    }
  }
  if (unit.empty() || unit == "1") return fmt::format(FMT_COMPILE("{:.4g}"), v);
  return fmt::format(FMT_COMPILE("{:.4g} {}"), v, unit);
}

}  // namespace harness
