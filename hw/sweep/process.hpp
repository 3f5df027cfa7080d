// Child processes for the sweep backends (POSIX; Linux for the parent-death
// signal). Plain C++ over fork/exec: no shell, so arguments are never
// re-parsed.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace smshare {

// Starts `argv` (argv[0] a path). The child is killed when this process
// dies, so a killed sweep leaves no run behind that could race with the
// sweep that resumes it. Throws std::runtime_error if it cannot start.
pid_t spawn_child(const std::vector<std::string>& argv);

struct CommandOutput {
  int exit_code = -1;  // 127: not found
  std::string out, err;
};
// Runs `argv` (argv[0] looked up on PATH) to completion, capturing its output.
CommandOutput run_command(const std::vector<std::string>& argv);

// The exit code a shell would report for a waitpid() status (128+signal if killed).
int exit_code_of(int wait_status);

// This program's own path (/proc/self/exe), so children run the same build.
std::string self_executable();

}  // namespace smshare
