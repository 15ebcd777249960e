// libFuzzer target: any line a hostile host or a broken agent sends gives a
// request or an error with a message, never a crash, a hang or undefined
// behaviour (harness/rig/protocol.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/rig/protocol.h"

namespace {

template <class R>
void check(const R& r) {
  if (!r && r.error().message.empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace harness;
  std::string line(reinterpret_cast<const char*>(data), size);
  Result<nlohmann::json> j = protocol::parse_line(line);
  check(j);
  if (!j) return 0;
  for (const char* key : {"workload", "counters", "roofline", "plan", "result"}) {
    const nlohmann::json& part = j->contains(key) ? (*j)[key] : *j;
    check(protocol::workload_from_wire(part));
    check(protocol::counters_from_wire(part));
    check(protocol::roofline_from_wire(part));
    check(protocol::plan_from_wire(part));
    check(protocol::device_info_from_wire(part));
    check(protocol::stability_plan_from_wire(part));
    check(protocol::stability_readings_from_wire(part));
  }
  check(protocol::decode_step(*j));  // a level's step (progress) from the agent
  check(protocol::decode_iterations(*j, 1000));  // iterations from the agent, against a plan of 1000
  if (j->contains("data") && (*j)["data"].is_string()) check(protocol::base64_decode((*j)["data"].get<std::string>()));
  return 0;
}
