// Capture readers: each turns one file format into the same stream of packed
// samples (see capture.h). Errors name the file and the line (text formats)
// or the byte offset (binary formats), and exit with code 2.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/capture/capture.h"

namespace harness {

// Which of a file's channels a reader keeps, for formats that name them
// before the samples (VCD, Saleae CSV): a capture holds at most 64, an RTL
// or ILA dump hundreds.
struct ChannelPlan {
  std::vector<unsigned> keep;       // indices into the file's channels; empty: all of them
  std::vector<unsigned> idle_high;  // file indices whose value, unknown before any known one, reads high
};

struct ReadOptions {
  // Overrides the sample rate (needed for exports that do not state it and
  // whose timestamps do not reveal it).
  std::optional<double> samplerate;
  // "sr", "vcd", "saleae-csv", "saleae-binary", "state-listing"; empty: from
  // the file's name and first bytes.
  std::string format;
  // How a .sr file is read: "direct" (srzip_reader.h; also when empty) or
  // "libsigrok" (load_session, the benchmark's anchor).
  std::string sr_reader;
  // What an input may declare before it is refused (limits.h).
  ReaderLimits limits;
  // Given every channel name of such a file, which to keep; unset: all (an
  // error above 64). The decoder keeps the channels its roles can use.
  std::function<Result<ChannelPlan>(const std::vector<std::string>& channels)> plan_channels;
  // Threads inflating a .sr's chunk entries (the direct reader); 0: one per
  // core. The samples reach the sink in the same order and chunks whatever
  // the number. Other formats are read on the calling thread.
  unsigned jobs = 0;
};

// A plan keeping the channels of these names, in the file's order (capture
// info/convert --channels); an unknown name is an error with "did you mean".
std::function<Result<ChannelPlan>(const std::vector<std::string>&)> plan_named_channels(std::vector<std::string> names);

// What the readers make of a plan: the capture's channel names, and for each
// file channel its capture channel (or kNotRead).
constexpr unsigned kNotRead = ~0u;
struct ChannelChoice {
  std::vector<std::string> names;
  std::vector<unsigned> index;
  std::vector<unsigned> idle_high;  // capture channels
};
Result<ChannelChoice> choose_channels(const std::vector<std::string>& file_channels, const ReadOptions& options,
                                      const std::string& where);

// The format a path holds, from its extension and first bytes (or an error
// listing the formats known).
Result<std::string> detect_capture_format(const std::string& path);

// Reads any supported capture. A state listing is rendered to a timing
// waveform at 8 samples per clock (read_state_listing for the rows).
Status read_capture(const std::string& path, const ReadOptions& options, CaptureSink& sink);

// Text formats take the text and the name used in errors.
Status read_vcd(std::string_view text, const std::string& name, const ReadOptions& options,
                CaptureSink& sink);
Status read_saleae_csv(std::string_view text, const std::string& name, const ReadOptions& options,
                       CaptureSink& sink);

// Saleae Logic 2 binary export, v0 or v1: one file per digital channel. The
// channel is named after the file ("digital_3.bin" -> "digital_3").
struct SaleaeBinaryFile {
  std::string name;   // channel name
  std::string where;  // file name for errors
  std::string bytes;
};
Status read_saleae_binary(const std::vector<SaleaeBinaryFile>& files, const ReadOptions& options,
                          CaptureSink& sink);
// The channel files of an export: a directory's digital_*.bin, or one file.
Result<std::vector<SaleaeBinaryFile>> load_saleae_binary_files(const std::string& path,
                                                               const ReaderLimits& limits = {});

// sigrok session file (.sr), read directly: the ZIP parsed by hand, deflate
// through ISA-L on options.jobs threads, the samples handed on in 4 MiB
// chunks (srzip_reader.h).
Status read_sr(const std::string& path, CaptureSink& sink);
Status read_sr(const std::string& path, const ReadOptions& options, CaptureSink& sink);
// The same through libsigrok's load_session (4 MiB packets), kept as the
// reference the direct reader is tested and benchmarked against.
Status read_sr_libsigrok(const std::string& path, CaptureSink& sink);

// Whole file as bytes; a missing file names the OS error.
Result<std::string> read_file_bytes(const std::string& path);
// The same for an input: a regular file of at most limits.file_bytes,
// checked before reading.
Result<std::string> read_input_file(const std::string& path, const ReaderLimits& limits);

}  // namespace harness
