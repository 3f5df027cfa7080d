#include "hw/common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include "hw/common/error.hpp"

namespace smshare {
namespace {

// Numbers the temporaries of this process: two writers in one process (the
// SystemC thread and a worker, or two tests) get different names too.
std::atomic<uint64_t> temporaries_made{0};

}  // namespace

AtomicFileWrite::AtomicFileWrite(std::string path) : path_(std::move(path)) {
  const std::string prefix = path_ + ".tmp." + std::to_string(getpid()) + ".";
  // A name taken already is a temporary left by a killed process whose pid
  // this one reuses: take the next number. A few tries are plenty.
  constexpr int kTries = 16;
  for (int attempt = 0; attempt < kTries && fd_ < 0; ++attempt) {
    tmp_path_ = prefix + std::to_string(temporaries_made.fetch_add(1));
    fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    fail("cannot create a temporary file", errno);
    tmp_path_.clear();  // none was made: nothing to remove
  }
}

AtomicFileWrite::~AtomicFileWrite() {
  if (fd_ >= 0) ::close(fd_);
  if (!renamed_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
}

void AtomicFileWrite::fail(const char* step, int err) {
  if (error_.empty()) error_ = std::string(step) + ": " + std::strerror(err);
}

bool AtomicFileWrite::commit(std::string_view content) {
  if (fd_ < 0) {
    if (ok()) error_ = "committed already";  // else error() says why there is no temporary
    return false;
  }
  for (size_t done = 0; done < content.size();) {
    const ssize_t w = ::write(fd_, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      fail("cannot write", w < 0 ? errno : EIO);
      break;
    }
    done += static_cast<size_t>(w);
  }
  // close() reports a deferred write error (NFS, a full disk): a file whose
  // bytes may be missing is not renamed into place.
  if (::close(fd_) != 0) fail("cannot write", errno);
  fd_ = -1;
  if (ok() && std::rename(tmp_path_.c_str(), path_.c_str()) != 0) fail("cannot rename into place", errno);
  renamed_ = ok();
  if (!renamed_) ::unlink(tmp_path_.c_str());
  tmp_path_.clear();
  return renamed_;
}

void write_file_atomically(const std::string& path, std::string_view content) {
  AtomicFileWrite out(path);
  if (!out.commit(content)) throw InputError(path + ": cannot be written (" + out.error() + ")");
}

}  // namespace smshare
