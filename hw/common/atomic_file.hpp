// Replacing a file atomically: the content goes to a temporary file beside
// it, which is then renamed over it, so a reader sees the old file or the new
// one, never half of either. Used by the sweep store (hw/sweep/) and the
// decoded-trace cache (hw/frontend/trace_cache.*); each keeps its own error
// policy (the store throws, the cache falls back to decoding in memory).
//
// The temporary's name is unique per writer (<path>.tmp.<pid>.<n>, created
// with O_EXCL), so two writers of one path, in one process or several (runs
// of a sweep sharing a trace), never write into each other's temporary; the
// last rename wins. It is created with mode 0666 less the process umask, as
// an ordinary file is: a sweep folder on a cluster may be group-writable on
// purpose (mkstemp would force 0600). Nothing is fsync'ed: a crash may lose
// the newest content, as with any ordinary write, but never tears a file.
#pragma once

#include <string>
#include <string_view>

namespace smshare {

class AtomicFileWrite {
 public:
  // Creates the temporary file beside `path`; ok() says whether it could.
  explicit AtomicFileWrite(std::string path);
  // Removes the temporary if commit() did not rename it into place.
  ~AtomicFileWrite();
  AtomicFileWrite(const AtomicFileWrite&) = delete;
  AtomicFileWrite& operator=(const AtomicFileWrite&) = delete;

  bool ok() const { return error_.empty(); }
  // Why it failed ("" while ok): the step and the system's reason, e.g.
  // "cannot create a temporary file: Permission denied".
  const std::string& error() const { return error_; }
  const std::string& temporary_path() const { return tmp_path_; }

  // Writes `content`, closes and renames the temporary over the path.
  // Returns false, with error() set, if any step fails (or the temporary
  // could not be created); the temporary is then removed and a file already
  // at the path is left as it was. A second call returns false, with error()
  // "committed already" if the first succeeded.
  bool commit(std::string_view content);

 private:
  void fail(const char* step, int err);

  std::string path_;
  std::string tmp_path_;
  int fd_ = -1;
  bool renamed_ = false;
  std::string error_;
};

// Replaces `path` by `content` through an AtomicFileWrite; throws InputError
// naming the path (and the reason) if it cannot.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace smshare
