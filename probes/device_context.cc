#include "probes/device_context.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "probes/process.h"

namespace harness {
namespace {

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fmt::format("unavailable: {}: {}", path, std::strerror(errno));
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::map<std::string, std::string> host_context(const std::string& proc_root, const std::string& sys_root) {
  std::map<std::string, std::string> c;
  c["harness_version"] = HARNESS_VERSION;
  char host[256] = {};
  c["host"] = gethostname(host, sizeof host - 1) == 0 ? host : "unavailable: gethostname failed";
  utsname u{};
  if (uname(&u) == 0) {
    c["kernel"] = fmt::format("{} {}", u.sysname, u.release);
    c["arch"] = u.machine;
  }
  c["cpu_count"] = std::to_string(std::thread::hardware_concurrency());
  std::ifstream cpuinfo(proc_root + "/cpuinfo");
  std::string line;
  c["cpu_model"] = "unavailable: no 'model name' in " + proc_root + "/cpuinfo";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) c["cpu_model"] = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  c["governor"] = read_first_line(sys_root + "/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  return c;
}

void collect_versions(const std::vector<VersionCommand>& versions, std::map<std::string, std::string>& context) {
  for (const VersionCommand& v : versions) {
    std::string key = "version." + v.name;
    Result<CommandResult> r = run_command(v.argv, {.timeout_s = 10, .max_output = 64 * 1024});
    if (!r) {
      context[key] = "unavailable: " + r.error().message;
    } else if (!r->succeeded()) {
      context[key] = fmt::format("unavailable: {} ended with {}", v.argv[0], r->describe_end());
    } else {
      context[key] = first_line(r->out.empty() ? r->err : r->out);
    }
  }
}

}  // namespace harness
