/* A small HTTP/1.1 server for refbench's service example: answers every
 * request on 127.0.0.1 after a fixed amount of work (REQUEST_WORK rounds of
 * a hash), keeps connections alive, serves up to MAX_CLIENTS at once from
 * one thread with poll(). Writes its port to PORT_FILE once it listens and
 * runs until it gets SIGTERM or SIGINT.
 * Usage: serve PORT_FILE */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REQUEST_WORK 400000
#define MAX_CLIENTS 64

static volatile sig_atomic_t stopping = 0;

static void stop(int signal_number) {
  (void)signal_number;
  stopping = 1;
}

/* The per-request work: a hash over REQUEST_WORK rounds. */
static unsigned long work(unsigned long seed) {
  unsigned long h = seed | 1;
  for (long i = 0; i < REQUEST_WORK; ++i) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
  }
  return h;
}

struct client {
  int fd;
  char buffer[8192];
  size_t used;
};

/* Answers every complete request in `c`'s buffer; returns 0 when the
 * connection should be closed. */
static int answer(struct client* c) {
  char* end;
  while ((end = strstr(c->buffer, "\r\n\r\n")) != NULL) {
    char body[64], response[256];
    int body_length = snprintf(body, sizeof body, "%lx\n", work((unsigned long)c->used));
    int length =
        snprintf(response, sizeof response,
                 "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", body_length, body);
    if (write(c->fd, response, (size_t)length) != length) {
      return 0;
    }
    size_t consumed = (size_t)(end + 4 - c->buffer);
    memmove(c->buffer, c->buffer + consumed, c->used - consumed + 1);
    c->used -= consumed;
  }
  return c->used < sizeof c->buffer - 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: serve PORT_FILE\n");
    return 2;
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = stop;
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  signal(SIGPIPE, SIG_IGN);

  int listener = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t address_length = sizeof address;
  if (bind(listener, (struct sockaddr*)&address, sizeof address) != 0 || listen(listener, 128) != 0 ||
      getsockname(listener, (struct sockaddr*)&address, &address_length) != 0) {
    perror("serve: cannot listen on 127.0.0.1");
    return 1;
  }
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s.tmp", argv[1]);
  FILE* port_file = fopen(temporary, "w");
  if (port_file == NULL || fprintf(port_file, "%d\n", ntohs(address.sin_port)) < 0 || fclose(port_file) != 0 ||
      rename(temporary, argv[1]) != 0) {
    perror("serve: cannot write the port file");
    return 1;
  }

  static struct client clients[MAX_CLIENTS];
  struct pollfd fds[MAX_CLIENTS + 1];
  size_t count = 0;
  while (!stopping) {
    fds[0] = (struct pollfd){.fd = listener, .events = POLLIN};
    for (size_t i = 0; i < count; ++i) {
      fds[i + 1] = (struct pollfd){.fd = clients[i].fd, .events = POLLIN};
    }
    if (poll(fds, count + 1, 1000) < 0) {
      if (errno == EINTR) {
        continue;
      }
      perror("serve: poll");
      return 1;
    }
    for (size_t i = count; i-- > 0;) {
      if (fds[i + 1].revents == 0) {
        continue;
      }
      struct client* c = &clients[i];
      ssize_t got = read(c->fd, c->buffer + c->used, sizeof c->buffer - 1 - c->used);
      if (got > 0) {
        c->used += (size_t)got;
        c->buffer[c->used] = '\0';
      }
      if (got <= 0 || !answer(c)) {
        close(c->fd);
        clients[i] = clients[--count];
      }
    }
    if ((fds[0].revents & POLLIN) && count < MAX_CLIENTS) {
      int fd = accept(listener, NULL, NULL);
      if (fd >= 0) {
        clients[count++] = (struct client){.fd = fd, .used = 0};
      }
    }
  }
  return 0;
}
