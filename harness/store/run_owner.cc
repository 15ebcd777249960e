#include "harness/store/run_owner.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace harness {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string host_name() {
  char host[256] = {};
  return gethostname(host, sizeof host - 1) == 0 ? std::string(host) : std::string();
}

// Field 22 (starttime) of /proc/<pid>/stat; empty when there is no such
// process. The command name (field 2) may hold spaces and parentheses, so
// fields are counted from its closing parenthesis.
std::string process_start(const std::string& proc_root, std::int64_t pid) {
  std::string stat = first_line(proc_root + "/" + std::to_string(pid) + "/stat");
  std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return "";
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return field;
  }
  return "";
}

}  // namespace

RunOwner current_run_owner(const std::string& proc_root) {
  RunOwner o;
  o.pid = static_cast<std::int64_t>(::getpid());
  o.pid_start = process_start(proc_root, o.pid);
  o.boot_id = first_line(proc_root + "/sys/kernel/random/boot_id");
  o.host = host_name();
  return o;
}

bool run_owner_gone(const RunOwner& owner, const std::string& proc_root) {
  if (owner.pid <= 0 || owner.host.empty() || owner.boot_id.empty()) return false;
  RunOwner here = current_run_owner(proc_root);
  if (owner.host != here.host) return false;  // another machine's run: not ours to judge
  if (owner.boot_id != here.boot_id) return true;
  std::string start = process_start(proc_root, owner.pid);
  if (start.empty()) return true;
  return !owner.pid_start.empty() && start != owner.pid_start;
}

}  // namespace harness
