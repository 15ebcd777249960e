// A direct reader of sigrok session files (.sr, "srzip"): the ZIP container
// read by the one ZIP reader (probes/zip/zip_reader.h: its limits, overlap
// and bomb checks), deflated entries inflated with ISA-L, the logic samples
// streamed into a CaptureSink in large chunks. It replaces libsigrok's
// load_session on the read path (about twice as fast here, no GLib main
// loop) and delivers what the libsigrok path delivers (read_sr_libsigrok in
// sigrok.cc): the same channel names, sample rate and samples. One
// deliberate difference: a chunk ending inside a sample is carried into the
// next chunk, where libsigrok drops its last bytes (no sigrok writer makes
// such chunks).
//
// Everything comes from a ByteSource, so tests and the fuzz target feed bytes
// from memory; every offset and size in the file is checked against the
// source's size before it is used. Memory stays bounded: a few MiB of input
// and output buffers whatever the size of the capture.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/base/result.h"
#include "probes/capture/capture.h"
#include "probes/capture/limits.h"
#include "probes/zip/byte_source.h"

namespace harness {

struct SrzipOptions {
  // Bytes read from the source at a time, and bytes of samples handed to the
  // sink at a time (rounded down to whole samples).
  std::size_t read_block = std::size_t{4} << 20;
  std::size_t sink_block = std::size_t{4} << 20;
  // Sizes the archive may declare (limits.h): inflated bytes per entry and in
  // total, samples.
  ReaderLimits limits;
  // Threads inflating chunk entries (0: one per core; 1: everything on the
  // calling thread). With more, the entries (independent deflate streams)
  // are inflated side by side and handed to the sink in order, on the
  // calling thread, in the same blocks as with one: the sink sees the same
  // calls whatever the number.
  unsigned jobs = 0;
  // Inflated bytes waiting for the sink at most: the block pool the threads
  // share (at least one block per thread and two more).
  std::size_t inflight_bytes = std::size_t{128} << 20;
};

// Reads a sigrok session from `source`; `name` (the file's path) starts every
// error message. Malformed archives, unsupported compression, CRC or size
// mismatches, truncated streams, entries whose bytes overlap and sizes beyond
// options.limits (or beyond what deflate can make of the entry's bytes) are
// Error::input naming the entry and the byte offset, found before the sink
// sees a sample.
Status read_srzip(ByteSource& source, const std::string& name, CaptureSink& sink, const SrzipOptions& options = {});

// What read_srzip checks before the sink sees a sample (the ZIP directory,
// entries sharing their bytes, version, metadata, the chunks' numbering and
// declared sizes against `limits`), without inflating the samples: the
// libsigrok reader path checks a capture with it before libsigrok opens it,
// so that both readers refuse the same archives. check_sr opens `path` by
// the rule for every file the harness reads.
Status check_srzip(ByteSource& source, const std::string& name, const ReaderLimits& limits);
Status check_sr(const std::string& path, const ReaderLimits& limits);

}  // namespace harness
