// Per-layer profiles from the profilers engineers already run, read into one
// typed form: each layer's time per inference, its work where the profile
// tells it, where it ran, and the kernels' intervals for the idle gaps.
// The formats (one table, profile_formats.cc): the project's own CSV/JSON,
// ONNX Runtime profiling JSON, Chrome trace event JSON (QNN's viewer too),
// TensorFlow Lite op profiling (text tables and CSV), Arm Vela's per-layer
// CSV and RKNN's perf detail table. Every reader finds columns by their
// header names, ignores unknown ones and refuses a malformed row with
// "file:line: ..." (exit 2). Reference: docs/parts/roofline.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/model/metric.h"

namespace harness {

// Where a layer ran, as far as the profile tells.
enum class LayerDevice { unknown, cpu, accelerator };

struct ProfileLayer {
  std::string name;
  std::string op;                  // op type as the profiler names it ("Conv", "CONV_2D", "permute")
  double time_s = 0;               // time per inference: its calls' total / the profile's runs
  std::optional<double> start_s;   // project format: when it started
  std::optional<double> median_s;  // the median over runs of its time in one run (several runs)
  int calls = 1;                   // executions seen in the whole profile
  std::optional<double> flops;     // operations per inference
  std::optional<double> bytes;     // bytes moved per inference
  Provenance flops_provenance = Provenance::declared;
  Provenance bytes_provenance = Provenance::declared;
  std::string flops_source, bytes_source;  // "Conv: 2 x output elements x ...", "activation_size + ..."
  bool bytes_from_shapes = false;  // bytes modelled from tensor shapes, not given
  LayerDevice device = LayerDevice::unknown;
  std::string device_text;         // as the profile names it: "CPUExecutionProvider", "NPU", "TfLiteNnapiDelegate"
  std::string where;               // "file:line" of its first row or event
};

// One kernel execution on the profile's clock (seconds), for idle gaps.
struct KernelInterval {
  double start_s = 0, end_s = 0;
  int run = 0;                // which inference it belongs to
  std::size_t layer = 0;      // index into LayerProfile::layers
};

struct LayerProfile {
  std::string format;  // the reader's name: "csv", "onnxruntime", "tflite", ...
  Provenance time_provenance = Provenance::measured;  // Vela: model (compiler estimates)
  int runs = 1;        // inferences the profile covers
  std::vector<ProfileLayer> layers;
  std::vector<KernelInterval> kernels;  // empty: the profile has no timestamps
  bool has_start = false;               // every kernel has a start: idle gaps can be found
  bool device_known = false;            // the profile says where each layer ran
  // Synchronisation the profile marks apart from kernels (ONNX Runtime's
  // fence events): per inference.
  std::optional<double> sync_time_s;
  int sync_events = 0;
  std::vector<std::string> notes;  // what the reader left out and why
};

// How to read a profile: the format ("auto": by content), and what a format
// needs that its file does not carry.
struct ProfileReadOptions {
  std::string format = "auto";
  double element_bytes = 4;            // element size for shapes without a data type
  std::optional<double> clock_hz;      // Vela: the accelerator clock its cycles count
  std::optional<int> runs;             // Chrome trace: the inferences the trace covers
};

// The names `format` accepts, "auto" first.
const std::vector<std::string>& profile_format_names();

// Reads `text` (from `path`, named in every error).
Result<LayerProfile> read_layer_profile(const std::string& text, const std::string& path,
                                        const ProfileReadOptions& options = {});

// The work (flops, bytes) of a second file's layers put onto `profile`'s
// layers by layer name; the second file's figures replace the profile's own.
// Returns the names of the work file's layers that matched no profile layer.
std::vector<std::string> join_layer_work(LayerProfile& profile, const LayerProfile& work);

// Copy-like ops (permute, transpose, copy, ...): moving data, no arithmetic.
bool is_copy_like(const std::string& op);

}  // namespace harness
