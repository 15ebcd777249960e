#include "probes/capture/readers.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "probes/capture/sigrok.h"
#include "probes/capture/state_listing.h"

namespace harness {

Result<std::string> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::input(fmt::format("{}: {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result<std::string> detect_capture_format(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return std::string("saleae-binary");
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".sr") return std::string("sr");
  if (ext == ".vcd") return std::string("vcd");
  if (ext == ".bin") return std::string("saleae-binary");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::input(fmt::format("{}: {}", path, std::strerror(errno)));
  char head[64] = {};
  in.read(head, sizeof head);
  std::string_view start(head, static_cast<std::size_t>(in.gcount()));
  if (start.substr(0, 3) == "\xEF\xBB\xBF") start.remove_prefix(3);  // UTF-8 byte order mark
  if (start.rfind("PK", 0) == 0) return std::string("sr");
  if (start.rfind("<SALEAE>", 0) == 0) return std::string("saleae-binary");
  if (start.rfind("Time", 0) == 0 || start.rfind("\"Time", 0) == 0) return std::string("saleae-csv");
  if (start.find("time_s,edge") != std::string_view::npos || start.rfind("#", 0) == 0) return std::string("state-listing");
  if (start.find('$') != std::string_view::npos) return std::string("vcd");
  return Error::input(fmt::format(
      "{}: unknown capture format (known: .sr, .vcd, Saleae binary .bin or its folder, Saleae CSV, "
      "state listing)", path));
}

Status read_capture(const std::string& path, const ReadOptions& options, CaptureSink& sink) {
  std::string format = options.format;
  if (format.empty()) {
    Result<std::string> detected = detect_capture_format(path);
    if (!detected) return detected.error();
    format = *detected;
  }
  if (format == "sr") {
    if (options.sr_reader.empty() || options.sr_reader == "direct") return read_sr(path, sink);
    if (options.sr_reader == "libsigrok") return read_sr_libsigrok(path, sink);
    return Error::input(fmt::format("unknown .sr reader '{}' (direct, libsigrok)", options.sr_reader));
  }
  if (format == "saleae-binary") {
    Result<std::vector<SaleaeBinaryFile>> files = load_saleae_binary_files(path);
    if (!files) return files.error();
    return read_saleae_binary(*files, options, sink);
  }
  Result<std::string> text = read_file_bytes(path);
  if (!text) return text.error();
  if (format == "vcd") return read_vcd(*text, path, options, sink);
  if (format == "saleae-csv") return read_saleae_csv(*text, path, options, sink);
  if (format == "state-listing") {
    Result<StateListing> listing = parse_state_listing(*text, path);
    if (!listing) return listing.error();
    return render_state_listing(*listing, 8, sink);
  }
  return Error::input(fmt::format("unknown capture format '{}' (sr, vcd, saleae-csv, saleae-binary, state-listing)",
                                  format));
}

}  // namespace harness
