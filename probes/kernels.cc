#include "probes/kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace harness {
namespace {

// What every built-in kernel shares. A run does the work once, then part of
// it again for `slowdown` (1.5: once, then half of it again), and adds an
// element of the output to the checksum so that the work cannot be dropped.
class Builtin : public KernelInstance {
 public:
  void run() final {
    work(1.0);
    double extra = spec_.slowdown - 1.0;
    while (extra > 1e-9) {
      double part = std::min(1.0, extra);
      work(part);
      extra -= part;
    }
    sum_ += output_sample();
  }
  double checksum() const final { return sum_; }

 protected:
  explicit Builtin(const BuiltinKernel& s) : spec_(s) {}
  // `part` of the work (1.0: all of it).
  virtual void work(double part) = 0;
  // The middle element of the output.
  virtual float output_sample() const = 0;

  BuiltinKernel spec_;

 private:
  double sum_ = 0;
};

class VectorAdd final : public Builtin {
 public:
  explicit VectorAdd(const BuiltinKernel& s)
      : Builtin(s), a_(s.elements, 1.0f), b_(s.elements, 2.0f), c_(s.elements, 0.0f) {
    for (std::size_t i = 0; i < a_.size(); ++i) a_[i] = static_cast<float>(i % 97) * 0.5f;
  }

 private:
  void work(double part) override {
    std::size_t n = static_cast<std::size_t>(static_cast<double>(c_.size()) * part);
    const float* a = a_.data();
    const float* b = b_.data();
    float* c = c_.data();
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
  float output_sample() const override { return c_[c_.size() / 2]; }

  std::vector<float> a_, b_, c_;
};

class Gemm final : public Builtin {
 public:
  explicit Gemm(const BuiltinKernel& s)
      : Builtin(s), a_(s.m * s.k), b_(s.k * s.n), c_(s.m * s.n, 0.0f) {
    for (std::size_t i = 0; i < a_.size(); ++i) a_[i] = static_cast<float>(i % 13) * 0.01f;
    for (std::size_t i = 0; i < b_.size(); ++i) b_[i] = static_cast<float>(i % 7) * 0.02f;
  }

 private:
  void work(double part) override {
    const std::size_t M = spec_.m, N = spec_.n, K = spec_.k;
    std::size_t rows = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(M) * part));
    std::fill(c_.begin(), c_.begin() + rows * N, 0.0f);
    // i-k-j order: the inner loop streams rows of B and C and vectorises.
    for (std::size_t i = 0; i < rows; ++i) {
      float* c = &c_[i * N];
      for (std::size_t kk = 0; kk < K; ++kk) {
        const float a = a_[i * K + kk];
        const float* b = &b_[kk * N];
        for (std::size_t j = 0; j < N; ++j) c[j] += a * b[j];
      }
    }
  }
  float output_sample() const override { return c_[c_.size() / 2]; }

  std::vector<float> a_, b_, c_;
};

// Row-wise softmax. Operations counted per element: max, subtract, exp,
// sum, divide = 5 (an exp counts as one operation, as profilers count it).
class Softmax final : public Builtin {
 public:
  explicit Softmax(const BuiltinKernel& s) : Builtin(s), x_(s.rows * s.cols), y_(s.rows * s.cols) {
    for (std::size_t i = 0; i < x_.size(); ++i) x_[i] = static_cast<float>(i % 31) * 0.1f;
  }

 private:
  void work(double part) override {
    const std::size_t R = spec_.rows, C = spec_.cols;
    std::size_t rows = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(R) * part));
    for (std::size_t r = 0; r < rows; ++r) {
      const float* x = &x_[r * C];
      float* y = &y_[r * C];
      float m = x[0];
      for (std::size_t j = 1; j < C; ++j) m = std::max(m, x[j]);
      float total = 0;
      for (std::size_t j = 0; j < C; ++j) {
        y[j] = std::exp(x[j] - m);
        total += y[j];
      }
      const float inv = 1.0f / total;
      for (std::size_t j = 0; j < C; ++j) y[j] *= inv;
    }
  }
  float output_sample() const override { return y_[y_.size() / 2]; }

  std::vector<float> x_, y_;
};

// Direct convolution, NCHW input, KCRS filters, stride 1, no padding.
class Conv2d final : public Builtin {
 public:
  explicit Conv2d(const BuiltinKernel& s)
      : Builtin(s),
        oh_(s.height - s.kernel_h + 1),
        ow_(s.width - s.kernel_w + 1),
        in_(s.batch * s.channels * s.height * s.width),
        w_(s.filters * s.channels * s.kernel_h * s.kernel_w),
        out_(s.batch * s.filters * oh_ * ow_) {
    for (std::size_t i = 0; i < in_.size(); ++i) in_[i] = static_cast<float>(i % 11) * 0.05f;
    for (std::size_t i = 0; i < w_.size(); ++i) w_[i] = static_cast<float>(i % 5) * 0.1f;
  }

 private:
  void work(double part) override {
    const std::int64_t N = spec_.batch, C = spec_.channels, H = spec_.height, W = spec_.width,
                       K = spec_.filters, R = spec_.kernel_h, S = spec_.kernel_w;
    std::int64_t filters = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(K) * part));
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < filters; ++k) {
        float* o = &out_[((n * K + k) * oh_) * ow_];
        std::fill(o, o + oh_ * ow_, 0.0f);
        for (std::int64_t c = 0; c < C; ++c)
          for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t s = 0; s < S; ++s) {
              const float wv = w_[((k * C + c) * R + r) * S + s];
              for (std::int64_t y = 0; y < oh_; ++y) {
                const float* in = &in_[((n * C + c) * H + y + r) * W + s];
                float* orow = o + y * ow_;
                for (std::int64_t x = 0; x < ow_; ++x) orow[x] += wv * in[x];
              }
            }
      }
  }
  float output_sample() const override { return out_[out_.size() / 2]; }

  std::int64_t oh_, ow_;
  std::vector<float> in_, w_, out_;
};

}  // namespace

KernelCost kernel_cost(const BuiltinKernel& s) {
  const double oh = static_cast<double>(s.height - s.kernel_h + 1);
  const double ow = static_cast<double>(s.width - s.kernel_w + 1);
  if (s.kind == "vector_add") return {1.0 * s.elements, 12.0 * s.elements};
  if (s.kind == "gemm") {
    // In doubles throughout: the int64 products overflow for m = k = 2^32.
    const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
    return {2.0 * m * n * k, 4.0 * (m * k + k * n + m * n)};
  }
  if (s.kind == "softmax") return {5.0 * s.rows * s.cols, 8.0 * s.rows * s.cols};
  if (s.kind == "conv2d") {
    double input = static_cast<double>(s.batch) * s.channels * s.height * s.width;
    double filters = static_cast<double>(s.filters) * s.channels * s.kernel_h * s.kernel_w;
    double output = static_cast<double>(s.batch) * s.filters * oh * ow;
    return {2.0 * s.batch * s.filters * s.channels * s.kernel_h * s.kernel_w * oh * ow,
            4.0 * (input + filters + output)};
  }
  return {};
}

Result<std::unique_ptr<KernelInstance>> make_kernel(const BuiltinKernel& spec, double max_bytes) {
  // Every built-in kernel holds exactly its compulsory traffic in memory.
  double bytes = kernel_cost(spec).model_bytes;
  if (bytes > max_bytes) {
    return Error::input(fmt::format("built-in kernel {} needs {:.3g} bytes of memory, more than the "
                                    "{:.3g} allowed", spec.kind, bytes, max_bytes));
  }
  if (spec.kind == "vector_add") return std::unique_ptr<KernelInstance>(new VectorAdd(spec));
  if (spec.kind == "gemm") return std::unique_ptr<KernelInstance>(new Gemm(spec));
  if (spec.kind == "softmax") return std::unique_ptr<KernelInstance>(new Softmax(spec));
  if (spec.kind == "conv2d") {
    if (spec.kernel_h > spec.height || spec.kernel_w > spec.width)
      return Error::input("built-in kernel conv2d: the filter is larger than the input");
    return std::unique_ptr<KernelInstance>(new Conv2d(spec));
  }
  return Error::input(fmt::format("unknown built-in kernel \"{}\"", spec.kind));
}

}  // namespace harness
