#pragma once
// A child's output kept within a bound: the last bytes (a tail) or the
// first bytes (a capture), with the count of everything it wrote.

#include <cstddef>
#include <cstdint>
#include <string>

namespace refbench::process {

class OutputBuffer {
public:
  // Keeps the last `limit` bytes appended when `keep_tail`, else the first
  // `limit`; holds at most 2 × `limit` meanwhile.
  OutputBuffer(std::size_t limit, bool keep_tail) : m_limit(limit), m_keep_tail(keep_tail) {}
  // Adds `size` bytes at `data`.
  void append(const char* data, std::size_t size);
  // How many bytes were appended in all, kept or not.
  std::uint64_t total() const { return m_total; }
  // The kept bytes (at most `limit`); leaves the buffer empty.
  std::string take();

private:
  std::size_t m_limit;
  bool m_keep_tail;
  std::uint64_t m_total = 0;
  std::string m_text;
};

// Reads what is available on the non-blocking `fd` into `buffer`; false at
// EOF or on an error other than EAGAIN (nothing more will come).
bool drain(int fd, OutputBuffer& buffer);

} // namespace refbench::process
