/* The loopback floor of the benchmarks: an HTTP/1.1 keep-alive server that reads each request
 * (its header and Content-Length body) and answers "{}" — no DynamoDB work, no JSON parse.
 * What it costs per request is what any server on this machine pays for the network alone.
 * Given a file, it answers the file's bytes instead: the floor of a request whose answer is
 * that size (a Query's page of items).
 *
 *   cc -O2 -o floor bench/floor.c && ./floor PORT [BODY_FILE]   (bench/items.py runs it)
 *
 * Single-threaded epoll, one buffer per connection; requests may be pipelined.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FDS 4096
#define BUFFER (1 << 20)

static char *reply;
static size_t reply_size;

/* The answer: the header, then `body`. */
static void set_reply(const char *body, size_t size) {
  reply = malloc(size + 128);
  int header = snprintf(reply, 128,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\n"
                        "Content-Length: %zu\r\n\r\n",
                        size);
  memcpy(reply + header, body, size);
  reply_size = (size_t)header + size;
}

/* The bytes of the file at `path` as the answer's body; 0 on success. */
static int load_reply(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file) return -1;
  static char body[BUFFER];
  size_t size = fread(body, 1, sizeof body, file);
  fclose(file);
  set_reply(body, size);
  return 0;
}

struct connection {
  char *data;
  size_t used;
};

static struct connection connections[MAX_FDS];

/* Consumes every complete request at the front of the buffer, answering each; returns -1 when
 * the connection must close. */
static int serve(int fd, struct connection *c) {
  for (;;) {
    char *end = memmem(c->data, c->used, "\r\n\r\n", 4);
    if (!end) return 0;
    size_t header = (size_t)(end - c->data) + 4;
    size_t body = 0;
    for (char *line = c->data; line < end; line = strstr(line, "\r\n") + 2) {
      if (strncasecmp(line, "Content-Length:", 15) == 0) body = strtoul(line + 15, NULL, 10);
    }
    if (c->used < header + body) return 0;
    if (write(fd, reply, reply_size) != (ssize_t)reply_size) return -1;
    memmove(c->data, c->data + header + body, c->used - header - body);
    c->used -= header + body;
  }
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s PORT [BODY_FILE]\n", argv[0]);
    return 2;
  }
  if (argc == 3 ? load_reply(argv[2]) : (set_reply("{}", 2), 0)) {
    perror("floor");
    return 1;
  }
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 512)) {
    perror("floor");
    return 1;
  }
  int epoll = epoll_create1(0);
  struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
  struct epoll_event ready[256];
  for (;;) {
    int n = epoll_wait(epoll, ready, 256, -1);
    for (int i = 0; i < n; ++i) {
      int fd = ready[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          if (client >= MAX_FDS) {
            close(client);
            continue;
          }
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          connections[client].data = malloc(BUFFER);
          connections[client].used = 0;
          struct epoll_event add = {.events = EPOLLIN, .data.fd = client};
          epoll_ctl(epoll, EPOLL_CTL_ADD, client, &add);
        }
        continue;
      }
      struct connection *c = &connections[fd];
      ssize_t got = read(fd, c->data + c->used, BUFFER - c->used);
      if (got <= 0 && !(got < 0 && errno == EAGAIN)) {
        close(fd);
        free(c->data);
        c->data = NULL;
        continue;
      }
      if (got > 0) c->used += (size_t)got;
      if (serve(fd, c) < 0 || c->used == BUFFER) {
        close(fd);
        free(c->data);
        c->data = NULL;
      }
    }
  }
}
