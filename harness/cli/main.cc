#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>

#include "harness/cli/commands.h"

namespace {

// The memory guard of last resort: an allocation that fails on a thread
// other than main's (a probe's reader, a worker) ends the process with exit
// 3 and a message instead of an abort. On main's thread run_cli catches it.
[[noreturn]] void on_terminate() {
  const char* message = "harness: error: the harness stopped on an internal error\n";
  int code = 3;
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      message = "harness: error: out of memory (an allocation failed); nothing more was stored\n";
    } catch (...) {
    }
  }
  ssize_t ignored = ::write(2, message, std::char_traits<char>::length(message));
  (void)ignored;
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate(on_terminate);
  return harness::run_cli(argc, argv, std::cout, std::cerr);
}
