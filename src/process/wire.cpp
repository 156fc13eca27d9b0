#include <refbench/process/wire.hpp>
#include <refbench/util/fd.hpp>

#include <array>
#include <cerrno>
#include <cstring>
#include <sys/socket.h>

namespace refbench::process::wire {
namespace {

class Writer {
public:
  void u64(std::uint64_t value) { m_out.append(reinterpret_cast<const char*>(&value), sizeof value); }
  void i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
  void f64(double value) { m_out.append(reinterpret_cast<const char*>(&value), sizeof value); }
  void str(std::string_view value) {
    u64(value.size());
    m_out.append(value);
  }
  void strs(const std::vector<std::string>& values) {
    u64(values.size());
    for (const auto& v : values) {
      str(v);
    }
  }
  std::string take() { return std::move(m_out); }

private:
  std::string m_out;
};

class Reader {
public:
  explicit Reader(std::string_view in) : m_in(in) {}
  bool ok() const { return m_ok; }
  bool done() const { return m_ok && m_in.empty(); }
  std::uint64_t u64() {
    std::uint64_t value = 0;
    raw(&value, sizeof value);
    return value;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64() {
    double value = 0;
    raw(&value, sizeof value);
    return value;
  }
  std::string str() {
    std::uint64_t size = u64();
    if (!m_ok || size > m_in.size()) {
      m_ok = false;
      return {};
    }
    std::string value(m_in.substr(0, size));
    m_in.remove_prefix(size);
    return value;
  }
  std::vector<std::string> strs() {
    std::uint64_t count = u64();
    std::vector<std::string> values;
    for (std::uint64_t i = 0; m_ok && i < count; ++i) {
      values.push_back(str());
    }
    return values;
  }

private:
  void raw(void* out, std::size_t size) {
    if (!m_ok || m_in.size() < size) {
      m_ok = false;
      return;
    }
    std::memcpy(out, m_in.data(), size);
    m_in.remove_prefix(size);
  }
  std::string_view m_in;
  bool m_ok = true;
};

} // namespace

std::string encode(const Startup& startup) {
  Writer w;
  w.i64(startup.peak_rss_bytes);
  w.f64(startup.spawn_resolution_seconds);
  return w.take();
}

std::optional<Startup> decode_startup(std::string_view body) {
  Reader r(body);
  Startup startup;
  startup.peak_rss_bytes = r.i64();
  startup.spawn_resolution_seconds = r.f64();
  return r.done() ? std::optional(startup) : std::nullopt;
}

std::string encode(const model::Invocation& invocation) {
  Writer w;
  w.strs(invocation.argv);
  w.strs(invocation.env);
  w.str(invocation.cwd);
  w.i64(invocation.timeout.count());
  w.str(invocation.stdout_path);
  w.u64(invocation.capture_stdout ? 1 : 0);
  w.u64(invocation.stderr_to_stdout ? 1 : 0);
  return w.take();
}

std::optional<model::Invocation> decode_invocation(std::string_view body) {
  Reader r(body);
  model::Invocation invocation;
  invocation.argv = r.strs();
  invocation.env = r.strs();
  invocation.cwd = r.str();
  invocation.timeout = std::chrono::nanoseconds(r.i64());
  invocation.stdout_path = r.str();
  invocation.capture_stdout = r.u64() != 0;
  invocation.stderr_to_stdout = r.u64() != 0;

  return r.done() ? std::optional(std::move(invocation)) : std::nullopt;
}

std::string encode(const model::Outcome& outcome) {
  Writer w;
  w.i64(static_cast<std::int64_t>(outcome.termination));
  w.i64(outcome.exit_code);
  w.i64(outcome.signal);
  w.i64(outcome.spawn_errno);
  for (double reading : outcome.readings.values()) {
    w.f64(reading);
  }
  w.i64(outcome.rss_floor_bytes);
  w.str(outcome.stderr_tail);
  w.str(outcome.stdout_text);
  w.u64(outcome.stdout_bytes);
  return w.take();
}

std::optional<model::Outcome> decode_outcome(std::string_view body) {
  Reader r(body);
  model::Outcome outcome;
  outcome.termination = static_cast<model::Termination>(r.i64());
  outcome.exit_code = static_cast<int>(r.i64());
  outcome.signal = static_cast<int>(r.i64());
  outcome.spawn_errno = static_cast<int>(r.i64());
  for (double& reading : outcome.readings.values()) {
    reading = r.f64();
  }
  outcome.rss_floor_bytes = r.i64();
  outcome.stderr_tail = r.str();
  outcome.stdout_text = r.str();
  outcome.stdout_bytes = r.u64();
  return r.done() ? std::optional(std::move(outcome)) : std::nullopt;
}

bool write_frame(int fd, std::string_view body) {
  auto size = static_cast<std::uint32_t>(body.size());
  std::string frame(reinterpret_cast<const char*>(&size), sizeof size);
  frame.append(body);
  return util::write_all(fd, frame.data(), frame.size());
}

bool read_frame(int fd, std::string& body) {
  std::uint32_t size = 0;
  if (!util::read_all(fd, &size, sizeof size)) {
    return false;
  }
  body.resize(size);
  return size == 0 || util::read_all(fd, body.data(), size);
}

bool write_type(int fd, char type, int passed) {
  if (passed < 0) {
    return util::write_all(fd, &type, 1);
  }
  iovec data{&type, 1};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(header), &passed, sizeof(int));
  for (;;) {
    const ssize_t n = ::sendmsg(fd, &message, MSG_NOSIGNAL);
    if (n == 1) {
      return true;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    return false;
  }
}

bool read_type(int fd, char& type, util::Fd& passed) {
  passed.reset();
  iovec data{&type, 1};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  ssize_t n = 0;
  while ((n = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); n == 1 && header != nullptr; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS &&
        header->cmsg_len == CMSG_LEN(sizeof(int))) {
      int received = -1;
      std::memcpy(&received, CMSG_DATA(header), sizeof(int));
      passed.reset(received);
    }
  }
  return n == 1;
}

} // namespace refbench::process::wire
