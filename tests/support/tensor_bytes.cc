#include "tests/support/tensor_bytes.h"

#include <cstring>

#include <fmt/format.h>

#include "tests/support/zip_builder.h"

namespace harness::testing_support {

namespace {

std::string npy_v1(std::string dict, const std::string& data) {
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict + data;
}

std::string npy_dict(const std::string& descr, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

}  // namespace

std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string dict = npy_dict(descr, shape);
  const std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  return npy_v1(dict, data);
}

std::string npy_unpadded_header(const std::string& descr, const std::string& shape) {
  return npy_v1(npy_dict(descr, shape), "");
}

std::string floats(const std::vector<float>& v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

std::string npz_sharing_one_stream(unsigned entries, std::uint64_t inflated_bytes) {
  // 2 + 258 k zero bytes, a whole number of float32 values: k odd.
  std::uint64_t matches = inflated_bytes / 258;
  if (matches % 2 == 0) ++matches;
  const std::uint64_t zeros = 2 + 258 * matches;
  const std::string header = npy("<f4", fmt::format("({},)", zeros / 4), "");
  const std::string stream = zero_bomb_deflate(header, matches);
  std::vector<std::string> names;
  for (unsigned i = 0; i < entries; ++i) names.push_back(fmt::format("t{}.npy", i));
  return shared_entry_zip(names, stream, 8, static_cast<std::uint32_t>(header.size() + zeros),
                          crc32_of_zeros_after(header, zeros));
}

}  // namespace harness::testing_support
