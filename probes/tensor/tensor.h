// A tensor as level 5 reads it from a dump: its element type, shape and
// quantization, and where its bytes are. The files it comes from are read by
// the .npy codec (npy.h), the containers (.npz archives: npz.h; raw files
// with a JSON sidecar: sidecar.h) and the folder view (tensor_set.h); its
// values are streamed by tensor_stream.h.
//
// Nothing here allocates in proportion to a tensor: a header is checked
// against the size of its file before any data is read (a 2^40-element shape
// in a 100-byte file is refused at once), and the values are streamed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/zip/zip_reader.h"

namespace harness::tensor {

// The element types, one table (tensor.cc): name, size, and the .npy type
// code where NumPy has one.
enum class DType { float32, float16, bfloat16, float64, int8, uint8, int16, int32 };
std::string_view dtype_name(DType d);  // "float32", "bfloat16", ...
std::optional<DType> dtype_from_name(std::string_view name);
// The dtype of an .npy type code: kind 'f', 'i' or 'u' and size in bytes.
std::optional<DType> dtype_from_npy(char kind, std::uint64_t size);
std::size_t dtype_size(DType d);
bool dtype_is_integer(DType d);
// "float32, float16, ...": for messages naming what is supported.
std::string_view supported_dtypes();

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
  std::uint64_t count = 1;  // elements
  std::optional<Quantization> quant;
  // Inside `file`: an .npy or raw file's values start at data_offset; an .npz
  // tensor is the archive's `entry` (located), its values after the entry's
  // own .npy header of entry_header_bytes.
  std::uint64_t data_offset = 0;
  std::optional<zip::Entry> entry;
  std::uint64_t entry_header_bytes = 0;

  std::string shape_text() const;  // "(2, 3)"
};

// "(2, 3)", "(5,)", "()": as NumPy prints a shape.
std::string shape_text(const std::vector<std::uint64_t>& shape);
// Elements of a shape, or nullopt when they do not fit in 64 bits.
std::optional<std::uint64_t> element_count(const std::vector<std::uint64_t>& shape);
// `available` bytes must hold exactly the values of `shape` x `dtype`;
// errors name `origin` and both sizes.
Status check_data_size(const std::vector<std::uint64_t>& shape, DType dtype, std::uint64_t available,
                       const std::string& origin);

}  // namespace harness::tensor
