// A read-only, private memory mapping of a whole file: how the trace reader
// reads a trace's text and its decoded-trace cache without copying them.
#pragma once

#include <sys/mman.h>
#include <sys/stat.h>

#include <cstddef>
#include <memory>

namespace smshare {

class FileMapping {
 public:
  // Maps the file open on `fd` (which the caller may close afterwards); an
  // empty file maps to no bytes. Null, with errno set, if it cannot be
  // mapped.
  static std::shared_ptr<const FileMapping> map(int fd) {
    struct stat st {};
    if (fstat(fd, &st) != 0) return nullptr;
    auto f = std::shared_ptr<FileMapping>(new FileMapping());
    f->size_ = static_cast<size_t>(st.st_size);
    if (f->size_ > 0) {
      void* m = mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) return nullptr;
      f->data_ = static_cast<const char*>(m);
    }
    return f;
  }
  ~FileMapping() {
    if (data_) munmap(const_cast<char*>(data_), size_);
  }
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  const char* end() const { return data_ + size_; }

 private:
  FileMapping() = default;
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace smshare
