#include "probes/tensor/tensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace harness::tensor {
namespace {

struct DTypeRow {
  DType dtype;
  std::string_view name;
  std::size_t size;
  bool integer;
  char npy_kind;  // 'f', 'i', 'u'; 0: no .npy code (bfloat16)
};
constexpr DTypeRow kDTypes[] = {
    {DType::float32, "float32", 4, false, 'f'}, {DType::float16, "float16", 2, false, 'f'},
    {DType::bfloat16, "bfloat16", 2, false, 0}, {DType::float64, "float64", 8, false, 'f'},
    {DType::int8, "int8", 1, true, 'i'},        {DType::uint8, "uint8", 1, true, 'u'},
    {DType::int16, "int16", 2, true, 'i'},      {DType::int32, "int32", 4, true, 'i'},
};
const DTypeRow& row(DType d) {
  for (const DTypeRow& r : kDTypes)
    if (r.dtype == d) return r;
  return kDTypes[0];
}

}  // namespace

std::string_view dtype_name(DType d) { return row(d).name; }
std::optional<DType> dtype_from_name(std::string_view name) {
  for (const DTypeRow& r : kDTypes)
    if (r.name == name) return r.dtype;
  return std::nullopt;
}
std::optional<DType> dtype_from_npy(char kind, std::uint64_t size) {
  for (const DTypeRow& r : kDTypes)
    if (r.npy_kind != 0 && r.npy_kind == kind && r.size == size) return r.dtype;
  return std::nullopt;
}
std::size_t dtype_size(DType d) { return row(d).size; }
bool dtype_is_integer(DType d) { return row(d).integer; }
std::string_view supported_dtypes() { return "float32, float16, bfloat16, float64, int8, uint8, int16, int32"; }

std::string TensorInfo::shape_text() const { return tensor::shape_text(shape); }

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::optional<std::uint64_t> element_count(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

Status check_data_size(const std::vector<std::uint64_t>& shape, DType dtype, std::uint64_t available,
                       const std::string& origin) {
  std::optional<std::uint64_t> n = element_count(shape);
  const std::uint64_t size = dtype_size(dtype);
  if (!n || *n > UINT64_MAX / size)
    return Error::input(fmt::format("{}: shape {} has more elements than 2^64 bytes can hold", origin,
                                    shape_text(shape)));
  const std::uint64_t need = *n * size;
  if (need > available)
    return Error::input(fmt::format("{}: shape {} of {} needs {} bytes of data, the file holds {}: truncated, or the "
                                    "header does not match the data",
                                    origin, shape_text(shape), dtype_name(dtype), need, available));
  if (need < available)
    return Error::input(fmt::format("{}: shape {} of {} needs {} bytes of data, the file holds {} ({} bytes too "
                                    "many): the header does not match the data",
                                    origin, shape_text(shape), dtype_name(dtype), need, available,
                                    available - need));
  return ok();
}

}  // namespace harness::tensor
