// run_simulation() in a forked child process, its report handed back through
// a pipe: SystemC elaborates one simulation per process, and a testbench
// that compares two runs (a case against its reference) needs two. The
// calling process must not have elaborated a simulation itself.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "hw/top/simulation.hpp"

namespace smshare::tb {

// `simulate()` (one simulation, returning its report) in a forked child;
// `what` names it in the error.
template <class Simulate>
nlohmann::json run_in_child(Simulate&& simulate, const std::string& what) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("run_in_child: pipe() failed");
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("run_in_child: fork() failed");
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    int code = 0;
    try {
      text = simulate().dump();
    } catch (const std::exception& e) {
      text = e.what();
      code = 1;
    }
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(2);
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("run_in_child: the simulation of " + what + " failed: " + text);
  return nlohmann::json::parse(text);
}

inline nlohmann::json run_in_child(const RunRequest& request) {
  return run_in_child([&request] { return run_simulation(request); }, request.trace + request.kernel);
}

}  // namespace smshare::tb
