// Per-layer tensor dumps read from files: NumPy .npy, .npz archives (stored or
// deflated entries) and raw binary files described by a JSON sidecar. Pure
// file parsing; the accuracy level (harness/accuracy/) pairs and compares them.
//
// Nothing here allocates in proportion to a tensor: a header is checked
// against the size of its file before any data is read (a 2^40-element shape
// in a 100-byte file is refused at once), and the values are streamed in
// chunks, converted to double and dequantized on the way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/zip/zip_reader.h"

namespace harness::tensor {

enum class DType { float32, float16, bfloat16, float64, int8, uint8, int16, int32 };
std::string_view dtype_name(DType d);  // "float32", "bfloat16", ...
std::optional<DType> dtype_from_name(std::string_view name);
std::size_t dtype_size(DType d);
bool dtype_is_integer(DType d);

// Dequantization: real = scale * (q - zero_point), one pair for the whole
// tensor or one per index along `axis` (per channel).
struct Quantization {
  std::vector<double> scale;       // 1 entry: per tensor; else per channel
  std::vector<double> zero_point;  // same length as scale
  std::optional<int> axis;         // set when per channel
};

// Where a tensor's bytes are: a file, or an entry of an .npz archive.
struct TensorInfo {
  std::string name;    // the layer name (file stem, entry stem, or the sidecar's "name")
  std::string origin;  // for messages: "dir/conv1.npy", "model.npz:conv1.npy"
  std::string file;    // the file holding the bytes
  DType dtype = DType::float32;
  bool big_endian = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 1;           // elements
  std::optional<Quantization> quant;
  // Inside `file`: an .npy or raw file's data starts at data_offset and is
  // stored_bytes long; an .npz tensor is the archive's `entry` (located), its
  // values after the entry's own .npy header of entry_header_bytes.
  std::uint64_t data_offset = 0;
  std::uint64_t stored_bytes = 0;
  std::optional<zip::Entry> entry;
  std::uint64_t entry_header_bytes = 0;

  std::string shape_text() const;  // "(2, 3)"
};

// The parsed header of an .npy stream: what np.save writes before the data.
struct NpyHeader {
  DType dtype = DType::float32;
  bool big_endian = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 1;
  std::uint64_t header_bytes = 0;  // magic + version + length + dict
};

// Largest .npy header accepted (np.save writes < 100 bytes of dict; format 2
// allows 4 GiB, which would be an allocation a hostile file controls).
constexpr std::size_t kMaxNpyHeaderBytes = 64 * 1024;

// Parses an .npy header from the first bytes of a file or entry (`bytes` may
// hold more than the header). `origin` starts every message. A header that
// needs more bytes than given is an error naming how many.
Result<NpyHeader> parse_npy_header(std::string_view bytes, const std::string& origin);

// Parses a JSON sidecar describing a raw tensor (or adding quantization to
// an .npy file). `path` is the sidecar's path, used in messages and to
// resolve its "data" file. Keys: name, data, shape, dtype, byte_order
// ("little" | "big"), scale, zero_point (numbers or arrays), axis.
struct Sidecar {
  std::string name;
  std::string data;  // the data file, resolved against the sidecar's folder
  std::optional<std::vector<std::uint64_t>> shape;
  std::optional<DType> dtype;
  bool big_endian = false;
  std::optional<Quantization> quant;
};
Result<Sidecar> parse_sidecar(std::string_view text, const std::string& path);

// Parses a quantization object ({"scale":..,"zero_point":..,"axis":..})
// given as JSON text; used by sidecars and by an .npz archive's companion
// "<archive>.json" ({"layer": {...}, ...}).
Result<std::optional<Quantization>> parse_quantization_json(std::string_view json_object_text,
                                                            const std::string& where);

// Checks a quantization against a shape: the axis exists and the number of
// per-channel entries equals that axis' extent.
Status check_quantization(const Quantization& q, const std::vector<std::uint64_t>& shape, const std::string& origin);

// Lists the tensors of an .npz archive (entries ending in .npy), reading only
// the ZIP directory, the local headers and each entry's .npy header.
Result<std::vector<TensorInfo>> list_npz(const std::string& path);

// Same, from bytes in memory (the fuzz target): `name` stands for the file.
Result<std::vector<TensorInfo>> list_npz_bytes(std::string_view bytes, const std::string& name);

// A tensor set: a directory of .npy files and raw+sidecar pairs, an .npz
// archive, or a single .npy file. Sorted by layer name for a directory,
// archive order for an .npz. Two tensors with one name are an error.
Result<std::vector<TensorInfo>> list_tensor_set(const std::string& path);

// Streams a tensor's values as doubles (dequantized), in order.
class TensorStream {
 public:
  virtual ~TensorStream() = default;
  // Up to `cap` values into `out`; 0 at the end (after verifying the entry's
  // CRC for an npz entry). Errors name the origin.
  virtual Result<std::size_t> read(double* out, std::size_t cap) = 0;
};
Result<std::unique_ptr<TensorStream>> open_tensor(const TensorInfo& info);
// Same, over bytes in memory standing for info.file (tests and fuzzing).
Result<std::unique_ptr<TensorStream>> open_tensor_bytes(const TensorInfo& info, std::string_view file_bytes);

// Conversions, exposed for tests.
double half_to_double(std::uint16_t h);
double bfloat16_to_double(std::uint16_t b);

}  // namespace harness::tensor
