#pragma once
// RAII owner of a file descriptor.

#include <utility>

namespace refbench::util {

class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(Fd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset(std::exchange(other.m_fd, -1));
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  // Gives up ownership and returns the descriptor.
  int release() { return std::exchange(m_fd, -1); }
  // Closes the owned descriptor (if any) and takes `fd`.
  void reset(int fd = -1);

private:
  int m_fd = -1;
};

// Writes all of `data` to `fd`, retrying on EINTR and short writes; false on error.
bool write_all(int fd, const void* data, std::size_t size);

// Reads exactly `size` bytes; false on EOF or error.
bool read_all(int fd, void* data, std::size_t size);

} // namespace refbench::util
