// Built-in kernels run in-process on a host: the workload of
// scenarios/host.toml and the kernels placed on its roofline.
#pragma once

#include <memory>
#include <string>

#include "harness/base/result.h"
#include "probes/workload/workload_spec.h"

namespace harness {

// What one run of a kernel costs, from its shape alone.
struct KernelCost {
  double flops = 0;        // arithmetic operations (2 per multiply-add)
  double model_bytes = 0;  // compulsory DRAM traffic: inputs read once, outputs written once
};
KernelCost kernel_cost(const BuiltinKernel& spec);

class KernelInstance {
 public:
  virtual ~KernelInstance() = default;
  // One execution. The result feeds a checksum so the compiler cannot drop it.
  virtual void run() = 0;
  virtual double checksum() const = 0;
};

// Allocates and initialises the kernel's buffers; refuses shapes that would
// need more than `max_bytes` of memory.
Result<std::unique_ptr<KernelInstance>> make_kernel(const BuiltinKernel& spec,
                                                    double max_bytes = 8e9);

}  // namespace harness
