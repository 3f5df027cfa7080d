#include "hw/sweep/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace smshare {

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

std::string drain(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) text.append(buffer, static_cast<size_t>(n));
  return text;
}

}  // namespace

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

pid_t spawn_child(const std::vector<std::string>& argv) {
  const pid_t parent = getpid();
  auto args = c_argv(argv);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(137);  // the parent died before prctl took effect
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

CommandOutput run_command(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  auto args = c_argv(argv);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]), close(out_pipe[1]), close(err_pipe[0]), close(err_pipe[1]);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]), close(err_pipe[1]);
  CommandOutput result;
  // Small outputs (sbatch, squeue): stdout first, then stderr, cannot fill both pipes at once.
  result.out = drain(out_pipe[0]);
  result.err = drain(err_pipe[0]);
  close(out_pipe[0]), close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = exit_code_of(status);
  return result;
}

std::string self_executable() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw std::runtime_error(std::string("readlink /proc/self/exe: ") + std::strerror(errno));
  path[n] = '\0';
  return path;
}

}  // namespace smshare
