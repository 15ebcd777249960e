// TCP ports on 127.0.0.1 for tests, at a port the kernel picks.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace harness::testing_support {

// A socket bound to 127.0.0.1; `port` gets its port.
inline int bind_loopback(int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

// The same, listening (and never accepting unless its owner does).
inline int listen_on_loopback(int& port) {
  int fd = bind_loopback(port);
  ::listen(fd, 8);
  return fd;
}

}  // namespace harness::testing_support
