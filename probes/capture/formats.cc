#include "probes/capture/formats.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "harness/base/closest_match.h"
#include "harness/base/files.h"
#include "probes/capture/sigrok.h"

namespace harness {

// The path-level reader of each format, one per reader file.
Status read_sr_file(const std::string& path, const ReadOptions& options, CaptureSink& sink);  // readers.cc
Status read_vcd_file(const std::string& path, const ReadOptions& options, CaptureSink& sink);  // vcd_reader.cc
Status read_saleae_csv_file(const std::string& path, const ReadOptions& options, CaptureSink& sink);  // saleae_reader.cc
Status read_saleae_binary_path(const std::string& path, const ReadOptions& options, CaptureSink& sink);  // saleae_reader.cc
Status read_state_listing_file(const std::string& path, const ReadOptions& options, CaptureSink& sink);  // state_listing.cc
Result<StateListing> read_state_listing_rows(const std::string& path, const ReaderLimits& limits);  // state_listing.cc

namespace {

using Kind = FormatSignature::Kind;

std::unique_ptr<CaptureSink> write_sr(const std::string& path, std::size_t chunk_bytes) {
  return std::make_unique<SrWriter>(path, chunk_bytes);
}

constexpr FormatSignature kSr[] = {{Kind::extension, ".sr"}, {Kind::prefix, "PK"}};
constexpr FormatSignature kVcd[] = {{Kind::extension, ".vcd"}, {Kind::contains, "$"}};
constexpr FormatSignature kSaleaeCsv[] = {{Kind::prefix, "Time"}, {Kind::prefix, "\"Time"}};
constexpr FormatSignature kSaleaeBinary[] = {
    {Kind::folder, ""}, {Kind::extension, ".bin"}, {Kind::prefix, "<SALEAE>"}};
constexpr FormatSignature kStateListing[] = {{Kind::prefix, "#"}, {Kind::contains, "time_s,edge"}};

const std::array<CaptureFormat, 5> kFormats = {{
    {"sr", "sigrok session (srzip): PulseView's and sigrok-cli's format", kSr, read_sr_file, write_sr,
     "--jobs, --sr-reader, --reader-limit"},
    {"vcd", "value change dump (IEEE 1364): simulators, ILAs, sigrok-cli", kVcd, read_vcd_file, nullptr,
     "--samplerate, --channels, --reader-limit"},
    {"saleae-csv", "Saleae Logic 2 CSV export", kSaleaeCsv, read_saleae_csv_file, nullptr,
     "--samplerate, --channels, --reader-limit"},
    {"saleae-binary", "Saleae Logic 2 binary export v0/v1 (a digital_N.bin or its folder)", kSaleaeBinary,
     read_saleae_binary_path, nullptr, "--samplerate, --reader-limit"},
    {"state-listing", "state-mode listing: one row per CK edge (time_s,edge,...)", kStateListing,
     read_state_listing_file, nullptr, "--reader-limit", read_state_listing_rows},
}};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::folder: return "a folder";
    case Kind::extension: return "name ends";
    case Kind::prefix: return "starts with";
    case Kind::contains: return "contains";
  }
  return "";
}

// The format with a signature of this kind that `test` accepts, the longest
// (most specific) signature first: a state listing's "time_s,edge" before
// VCD's "$".
template <class Test>
const CaptureFormat* first_with(Kind kind, Test test) {
  const CaptureFormat* best = nullptr;
  std::size_t best_length = 0;
  for (const CaptureFormat& f : kFormats)
    for (const FormatSignature& s : f.signatures)
      if (s.kind == kind && (!best || s.text.size() > best_length) && test(s.text)) {
        best = &f;
        best_length = s.text.size();
      }
  return best;
}

}  // namespace

std::span<const CaptureFormat> capture_formats() { return kFormats; }

const CaptureFormat* find_capture_format(std::string_view name) {
  for (const CaptureFormat& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> capture_format_list() {
  std::vector<std::string> names;
  for (const CaptureFormat& f : kFormats) names.emplace_back(f.name);
  return names;
}

std::string capture_format_names() {
  std::string out;
  for (const CaptureFormat& f : kFormats) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

Result<const CaptureFormat*> capture_format_named(std::string_view name, std::string_view what) {
  if (const CaptureFormat* f = find_capture_format(name)) return f;
  std::optional<std::string> close = closest_match(std::string(name), capture_format_list());
  return Error::input(fmt::format("{}: unknown capture format '{}'{} (known: {})", what, name,
                                  close ? fmt::format(" (did you mean '{}'?)", *close) : "", capture_format_names()));
}

Result<const CaptureFormat*> recognise_capture(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    if (const CaptureFormat* f = first_with(Kind::folder, [](std::string_view) { return true; })) return f;
  // A FIFO or a device would block the sniffing read below (or never end);
  // every reader wants a regular file anyway.
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) return not_a_regular_file(path, st.type());
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (const CaptureFormat* f = first_with(Kind::extension, [&](std::string_view e) { return !ext.empty() && e == ext; }))
    return f;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::input(fmt::format("{}: {}", path, std::strerror(errno)));
  char head[64] = {};
  in.read(head, sizeof head);
  std::string_view start(head, static_cast<std::size_t>(in.gcount()));
  if (start.substr(0, 3) == "\xEF\xBB\xBF") start.remove_prefix(3);  // UTF-8 byte order mark
  if (const CaptureFormat* f = first_with(Kind::prefix, [&](std::string_view p) { return start.rfind(p, 0) == 0; }))
    return f;
  if (const CaptureFormat* f =
          first_with(Kind::contains, [&](std::string_view p) { return start.find(p) != std::string_view::npos; }))
    return f;
  return Error::input(fmt::format("{}: unknown capture format (known: {}; see capture info --formats)", path,
                                  capture_format_names()));
}

Result<const CaptureFormat*> recognise_output(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const CaptureFormat* named = first_with(Kind::extension, [&](std::string_view e) { return !ext.empty() && e == ext; });
  if (named && named->write) return named;
  std::string writers;
  for (const CaptureFormat& f : kFormats)
    if (f.write) writers += (writers.empty() ? "" : ", ") + std::string(f.name);
  if (named) return Error::input(fmt::format("{}: the harness reads {} but does not write it (it writes: {})", path,
                                             named->name, writers));
  for (const CaptureFormat& f : kFormats)
    if (f.write) return &f;
  return Error::infra("no capture format has a writer");
}

std::string capture_format_table_text() {
  std::string out;
  for (const CaptureFormat& f : kFormats) {
    std::string seen;
    for (const FormatSignature& s : f.signatures)
      seen += fmt::format("{}{}{}", seen.empty() ? "" : "; ", kind_name(s.kind),
                          s.text.empty() ? "" : fmt::format(" '{}'", s.text));
    out += fmt::format("{}\n  {}\n  recognised: {}\n  written by: {}\n  options:    {}\n", f.name, f.description,
                       seen, f.write ? "capture convert, capture synth" : "(read only)", f.options);
  }
  return out;
}

}  // namespace harness
