#include <refbench/process/output_buffer.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <unistd.h>

namespace refbench::process {

void OutputBuffer::append(const char* data, std::size_t size) {
  m_total += size;
  if (!m_keep_tail) {
    m_text.append(data, std::min(size, m_limit - std::min(m_limit, m_text.size())));
    return;
  }
  if (size >= m_limit) {
    m_text.assign(data + size - m_limit, m_limit);
    return;
  }
  m_text.append(data, size);
  if (m_text.size() > 2 * m_limit) {
    m_text.erase(0, m_text.size() - m_limit);
  }
}

std::string OutputBuffer::take() {
  if (m_text.size() > m_limit) {
    m_text.erase(0, m_text.size() - m_limit);
  }
  return std::move(m_text);
}

bool drain(int fd, OutputBuffer& buffer) {
  std::array<char, 16384> chunk{};
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n > 0) {
      buffer.append(chunk.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

} // namespace refbench::process
