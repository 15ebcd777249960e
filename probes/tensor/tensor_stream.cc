#include "probes/tensor/tensor_stream.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "harness/base/input_limits.h"
#include "probes/zip/byte_source.h"
#include "probes/zip/zip_reader.h"

namespace harness::tensor {

double half_to_double(std::uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(static_cast<double>(frac), -24);
  else if (exp == 31) v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(static_cast<double>(frac | 0x400), exp - 25);
  return sign ? -v : v;
}

double bfloat16_to_double(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}

namespace {

// std::byteswap is C++23; GCC 12 has the builtins.
std::uint16_t swap_bytes(std::uint16_t v) { return __builtin_bswap16(v); }
std::uint32_t swap_bytes(std::uint32_t v) { return __builtin_bswap32(v); }
std::uint64_t swap_bytes(std::uint64_t v) { return __builtin_bswap64(v); }

// The bytes of a tensor's values, in order: a plain file's from its data
// offset, or an .npz entry's after the entry's own .npy header (the entry's
// size and CRC-32 checked at its end).
class ValueBytes {
 public:
  ValueBytes(ByteSource& src, const TensorInfo& info) : src_(src), info_(info) {
    if (info.entry) entry_.emplace(src, *info.entry, info.origin, scratch_);
  }

  // Exactly `n` bytes: the caller asks for no more than the tensor holds.
  Status read(std::uint8_t* out, std::size_t n) {
    if (!entry_) {
      Result<std::size_t> got = src_.read_at(info_.data_offset + position_, out, n);
      if (!got) return got.error();
      if (*got != n)
        return Error::input(fmt::format("{}: the file ends at byte offset {}, {} bytes of data expected: truncated",
                                        info_.origin, info_.data_offset + position_ + *got,
                                        info_.count * dtype_size(info_.dtype)));
      position_ += n;
      return ok();
    }
    if (position_ == 0 && info_.entry_header_bytes > 0) {
      std::vector<std::uint8_t> header(static_cast<std::size_t>(info_.entry_header_bytes));
      HARNESS_TRY(fill(header.data(), header.size()));
    }
    HARNESS_TRY(fill(out, n));
    position_ += n;
    return ok();
  }

  // After the last value: an entry must end here, its size and CRC-32 right.
  Status finish() {
    if (!entry_) return ok();
    std::uint8_t extra = 0;
    Result<std::size_t> n = entry_->read(&extra, 1);
    if (!n) return n.error();
    if (*n != 0) return Error::input(info_.origin + ": the entry holds more bytes than its shape: corrupt file");
    return ok();
  }

 private:
  Status fill(std::uint8_t* out, std::size_t n) {
    bool ended = false;
    Result<std::size_t> got = entry_->fill(out, n, ended);
    if (!got) return got.error();
    if (*got != n)
      return Error::input(fmt::format("{}: the entry ends {} bytes early: corrupt file", info_.origin, n - *got));
    return ok();
  }

  ByteSource& src_;
  const TensorInfo& info_;
  zip::InflateScratch scratch_;
  std::optional<zip::EntryReader> entry_;
  std::uint64_t position_ = 0;  // bytes of values read
};

class Stream final : public TensorStream {
 public:
  Stream(std::unique_ptr<ByteSource> owned, ByteSource& src, const TensorInfo& info)
      : owned_(std::move(owned)), info_(info), bytes_(src, info_) {
    size_ = dtype_size(info.dtype);
    if (info_.quant) {
      const Quantization& q = *info_.quant;
      if (q.axis) {
        const int rank = static_cast<int>(info_.shape.size());
        const std::size_t axis = static_cast<std::size_t>(*q.axis < 0 ? *q.axis + rank : *q.axis);
        inner_ = 1;
        for (std::size_t i = axis + 1; i < info_.shape.size(); ++i) inner_ *= info_.shape[i];
        channels_ = info_.shape[axis];
      }
    }
  }

  Result<std::size_t> read(double* out, std::size_t cap) override {
    const std::uint64_t left = info_.count - index_;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(cap, left));
    if (n == 0) {
      if (!verified_) {
        HARNESS_TRY(bytes_.finish());
        verified_ = true;
      }
      return std::size_t{0};
    }
    if (raw_.size() < n * size_) raw_.resize(n * size_);
    HARNESS_TRY(bytes_.read(raw_.data(), n * size_));
    convert(raw_.data(), out, n);
    index_ += n;
    return n;
  }

 private:
  template <class U>
  U load(const std::uint8_t* p) const {
    U v;
    std::memcpy(&v, p, sizeof v);
    if (info_.big_endian != (std::endian::native == std::endian::big)) v = swap_bytes(v);
    return v;
  }

  void convert(const std::uint8_t* p, double* out, std::size_t n) {
    const bool swap = info_.big_endian != (std::endian::native == std::endian::big);
    if (!swap && info_.dtype == DType::float32 && !info_.quant) {
      // The common case, kept a plain loop the compiler vectorises.
      for (std::size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        out[i] = f;
      }
      return;
    }
    switch (info_.dtype) {
      case DType::float32:
        for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(load<std::uint32_t>(p + 4 * i));
        break;
      case DType::float64:
        for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<double>(load<std::uint64_t>(p + 8 * i));
        break;
      case DType::float16:
        for (std::size_t i = 0; i < n; ++i) out[i] = half_to_double(load<std::uint16_t>(p + 2 * i));
        break;
      case DType::bfloat16:
        for (std::size_t i = 0; i < n; ++i) out[i] = bfloat16_to_double(load<std::uint16_t>(p + 2 * i));
        break;
      case DType::int8:
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int8_t>(p[i]);
        break;
      case DType::uint8:
        for (std::size_t i = 0; i < n; ++i) out[i] = p[i];
        break;
      case DType::int16:
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int16_t>(load<std::uint16_t>(p + 2 * i));
        break;
      case DType::int32:
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int32_t>(load<std::uint32_t>(p + 4 * i));
        break;
    }
    if (!info_.quant) return;
    const Quantization& q = *info_.quant;
    if (!q.axis) {
      const double s = q.scale[0], z = q.zero_point[0];
      for (std::size_t i = 0; i < n; ++i) out[i] = s * (out[i] - z);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t c = static_cast<std::size_t>(((index_ + i) / inner_) % channels_);
      out[i] = q.scale[c] * (out[i] - q.zero_point[c]);
    }
  }

  std::unique_ptr<ByteSource> owned_;
  TensorInfo info_;
  ValueBytes bytes_;
  std::size_t size_ = 4;
  std::uint64_t index_ = 0, inner_ = 1, channels_ = 1;
  std::vector<std::uint8_t> raw_;
  bool verified_ = false;
};

}  // namespace

Result<std::unique_ptr<TensorStream>> open_tensor(const TensorInfo& info) {
  Result<std::unique_ptr<FileByteSource>> src = FileByteSource::open(info.file, kMaxTensorFileBytes);
  if (!src) return src.error();
  ByteSource& ref = **src;
  return std::unique_ptr<TensorStream>(new Stream(std::move(*src), ref, info));
}

Result<std::unique_ptr<TensorStream>> open_tensor_bytes(const TensorInfo& info, std::string_view file_bytes) {
  auto src = std::make_unique<MemoryByteSource>(file_bytes);
  ByteSource& ref = *src;
  return std::unique_ptr<TensorStream>(new Stream(std::move(src), ref, info));
}

}  // namespace harness::tensor
