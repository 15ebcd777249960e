// The capture formats: one table (formats.cc), the only place that lists
// them. Each row says how a file of the format is recognised, which function
// reads it (its reader file: vcd_reader.cc, saleae_reader.cc, ...), which
// writes it (only sigrok's .sr has a writer) and which options it honours.
// Detection, `--format`, the scenario's `[ddr] format`, `capture info
// --formats` and the decoder's choice of path all read this table: a new
// format is one row plus its reader file.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/capture/capture.h"
#include "probes/capture/readers.h"
#include "probes/capture/state_listing.h"

namespace harness {

// How a file is recognised, tried in this order over all formats: a folder,
// then the file name's extension, then the first bytes (after a UTF-8 byte
// order mark): a prefix, then a string anywhere in them.
struct FormatSignature {
  enum class Kind { folder, extension, prefix, contains };
  Kind kind;
  std::string_view text;  // ".vcd", "<SALEAE>", "$" (empty for a folder)
};

using CaptureReaderFn = Status (*)(const std::string& path, const ReadOptions& options, CaptureSink& sink);
// A sink writing the format to `path` in entries of `chunk_bytes`.
using CaptureWriterFn = std::unique_ptr<CaptureSink> (*)(const std::string& path, std::size_t chunk_bytes);

using EdgeReaderFn = Result<StateListing> (*)(const std::string& path, const ReaderLimits& limits);

struct CaptureFormat {
  std::string_view name;         // --format, [ddr] format, CaptureHeader::format
  std::string_view description;
  std::span<const FormatSignature> signatures;
  CaptureReaderFn read;
  CaptureWriterFn write;         // null: the harness does not write this format
  std::string_view options;      // the reading options it honours, for help texts
  // For a format whose rows are clock edges (a state-mode listing): reads
  // them as they are, so the decoder skips finding CK edges in samples.
  EdgeReaderFn read_edges = nullptr;
};

std::span<const CaptureFormat> capture_formats();
// nullptr when no format has this name.
const CaptureFormat* find_capture_format(std::string_view name);
// "sr, vcd, saleae-csv, saleae-binary, state-listing"
std::string capture_format_names();
std::vector<std::string> capture_format_list();
// The format named, or an error listing the known ones (`what`: "--format").
Result<const CaptureFormat*> capture_format_named(std::string_view name, std::string_view what);
// The format a path holds, from the table's signatures, or an error listing
// what is known.
Result<const CaptureFormat*> recognise_capture(const std::string& path);
// The format an output file is written in: the writing format its name's
// extension names (an error for a format the harness only reads), else the
// first that has a writer.
Result<const CaptureFormat*> recognise_output(const std::string& path);
// The table as `capture info --formats` prints it.
std::string capture_format_table_text();

}  // namespace harness
