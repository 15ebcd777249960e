// Pairs the layers of a reference tensor set with the device's and computes
// each pair's error, streaming both tensors chunk by chunk (memory stays a
// few MiB whatever the tensors' size).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/accuracy/metrics.h"
#include "harness/base/result.h"
#include "probes/tensor/tensor.h"

namespace harness::accuracy {

// How the device dumps were made; the figures mean different things.
enum class DumpMode {
  cumulative,  // the device ran the model end to end: errors accumulate layer to layer
  isolated,    // each device layer was fed the reference's input: the layer's own error
};
std::string_view dump_mode_name(DumpMode m);
std::string_view dump_mode_meaning(DumpMode m);

// Reference layer name -> device layer name, for toolchains that name layers
// differently. Text file, one pair a line: "REFERENCE DEVICE" (whitespace
// separated); '#' starts a comment.
using LayerMap = std::map<std::string, std::string>;
Result<LayerMap> parse_layer_map(std::string_view text, const std::string& path);
// The map file opened by the rule for every file the harness reads
// (harness/base/files.h): a regular file of at most kMaxLayerMapBytes.
Result<LayerMap> read_layer_map(const std::string& path);

struct LayerPair {
  std::string layer;  // the reference's name
  tensor::TensorInfo reference, device;
};
struct Pairing {
  std::vector<LayerPair> pairs;          // reference order
  std::vector<std::string> reference_only, device_only;  // unpaired, listed in every output
};
// The sets to pair and how messages name them (their paths).
struct TensorSets {
  const std::vector<tensor::TensorInfo>& reference;
  const std::vector<tensor::TensorInfo>& device;
  std::string reference_path, device_path;
};
// A map entry naming a layer absent from either side is an error naming the
// map file (a stale map would otherwise hide layers); so is a pairing with
// no layer in common, naming both sides' layers (nothing to compare is bad
// input, not a comparison of nothing).
Result<Pairing> pair_layers(const TensorSets& sets, const LayerMap& map, const std::string& map_path);

struct LayerAccuracy {
  std::string layer, device_layer;
  std::string reference_origin, device_origin;
  std::string shape;
  std::string reference_dtype, device_dtype;
  ErrorStats stats;
  LayerMetrics metrics;
  // NaN/Inf in the device output: the layer's check fails (the metrics are
  // over the finite pairs and stay numbers).
  bool device_non_finite() const { return stats.dev_nan + stats.dev_inf > 0; }
};

// Compares one pair. Shape mismatch and a non-finite reference are
// Error::input naming the files.
Result<LayerAccuracy> compare_layer(const LayerPair& pair);

struct AccuracyComparison {
  std::string reference_path, device_path;
  DumpMode mode = DumpMode::cumulative;
  std::vector<LayerAccuracy> layers;  // reference order
  std::vector<std::string> reference_only, device_only;
};

struct CompareOptions {
  DumpMode mode = DumpMode::cumulative;
  std::string map_path;  // empty: pair by name
};
Result<AccuracyComparison> compare_tensor_sets(const std::string& reference_path, const std::string& device_path,
                                               const CompareOptions& options);

// The PSNR peak's definition, printed with every table.
constexpr std::string_view kPsnrPeakDefinition =
    "PSNR = 10 log10(peak^2 / MSE), peak = max(ref) - min(ref) of the layer's reference";

// Layers ordered worst first: by cosine (unavailable first), then PSNR.
std::vector<const LayerAccuracy*> worst_first(const std::vector<LayerAccuracy>& layers);

}  // namespace harness::accuracy
