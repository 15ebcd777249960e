#include "probes/capture/limits.h"

#include <array>
#include <charconv>
#include <optional>

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace harness {

std::span<const ReaderLimit> reader_limit_table() {
  static const std::array<ReaderLimit, 8> table = {{
      {"samples", &ReaderLimits::samples, "samples", "samples a capture may hold (any format)"},
      {"file_bytes", &ReaderLimits::file_bytes, "bytes", "size of a file read whole (VCD, Saleae, state listing)"},
      {"signal_bits", &ReaderLimits::signal_bits, "bits", "width of one VCD variable"},
      {"declared_bits", &ReaderLimits::declared_bits, "bits", "bits of all VCD variables together"},
      {"changes", &ReaderLimits::changes, "changes", "value changes held while reading VCD or Saleae files"},
      {"entry_bytes", &ReaderLimits::entry_bytes, "bytes", ".sr: inflated bytes of one chunk entry"},
      {"inflated_bytes", &ReaderLimits::inflated_bytes, "bytes", ".sr: inflated bytes of all chunk entries"},
      {"in_memory_bytes", &ReaderLimits::in_memory_bytes, "bytes", "samples loaded by capture decode --in-memory"},
  }};
  return table;
}

namespace {

const ReaderLimit* find_limit(std::uint64_t ReaderLimits::*field) {
  for (const ReaderLimit& l : reader_limit_table())
    if (l.field == field) return &l;
  return nullptr;
}

std::optional<std::uint64_t> parse_limit_value(std::string_view v) {
  std::uint64_t n = 0;
  if (v.rfind("2^", 0) == 0) {
    auto [end, ec] = std::from_chars(v.data() + 2, v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n > 63) return std::nullopt;
    return std::uint64_t{1} << n;
  }
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end == v.data()) return std::nullopt;
  std::string_view suffix(end, static_cast<std::size_t>(v.data() + v.size() - end));
  unsigned shift = 0;
  if (suffix == "Ki") shift = 10;
  else if (suffix == "Mi") shift = 20;
  else if (suffix == "Gi") shift = 30;
  else if (suffix == "Ti") shift = 40;
  else if (!suffix.empty()) return std::nullopt;
  if (shift && n > (UINT64_MAX >> shift)) return std::nullopt;
  return n << shift;
}

}  // namespace

Status set_reader_limit(ReaderLimits& limits, std::string_view assignment) {
  std::string names;
  for (const ReaderLimit& l : reader_limit_table()) names += (names.empty() ? "" : ", ") + std::string(l.name);
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos)
    return Error::input(fmt::format("reader limit '{}': expected NAME=VALUE ({})", assignment, names));
  const std::string_view name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  for (const ReaderLimit& l : reader_limit_table()) {
    if (l.name != name) continue;
    std::optional<std::uint64_t> n = parse_limit_value(value);
    if (!n || *n == 0)
      return Error::input(fmt::format("reader limit {}: '{}' is not a positive whole number (e.g. 8589934592, 8Gi, "
                                      "2^33)",
                                      name, value));
    limits.*l.field = *n;
    return ok();
  }
  return Error::input(fmt::format("unknown reader limit '{}' (known: {})", name, names));
}

namespace {

// What the decoder needs besides a loaded capture: the .sr reader's block
// pool (128 MiB), a thread's stack and malloc arena per inflating thread,
// the statistics.
constexpr std::uint64_t kReaderMargin = std::uint64_t{512} << 20;

std::uint64_t mapped_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  if (!(statm >> pages)) return 0;
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

std::uint64_t address_space_headroom() {
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  const std::uint64_t used = mapped_bytes() + kReaderMargin;
  return r.rlim_cur > used ? r.rlim_cur - used : 0;
}

std::string address_space_limit_text() {
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return "none";
  return fmt::format("{} bytes (ulimit -v {})", r.rlim_cur, r.rlim_cur / 1024);
}

Error limit_exceeded(const std::string& where, const std::string& what, std::uint64_t ReaderLimits::*field,
                     const ReaderLimits& limits) {
  const ReaderLimit* l = find_limit(field);
  return Error::input(fmt::format("{}: {}, more than the reader limit {} = {} {}", where, what,
                                  l ? l->name : "?", limits.*field, l ? l->unit : ""));
}

}  // namespace harness
