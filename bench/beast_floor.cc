// The floor of ddbd's fixed HTTP stack: a Boost.Beast keep-alive server on one io_context
// thread that reads each request as ddbd's sessions do (4 KB, then a request_parser with a
// string body reads the header and the body, into a flat_buffer) and answers "{}" with a Beast
// response — no DynamoDB work, no JSON parse. Beside bench/floor.c (the kernel's network path
// alone), what it costs per request is what Boost.Beast and Asio add before ddbd does anything.
// Given a file, it answers the file's bytes instead of "{}" (a Query's page of items).
//
//   c++ -O2 -std=c++20 -o beast_floor bench/beast_floor.cc -pthread && ./beast_floor PORT [BODY]
//   (bench/items.py builds and runs it)
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string answer_body = "{}";

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket socket) : socket_(std::move(socket)) {}

  // As ddbd's sessions: the first bytes of each request are read 4 KB at a time before the
  // parser reads on (it would read 512 bytes at a time into an empty buffer).
  void Read() {
    if (buffer_.size() > 0) return ReadRequest();
    socket_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return;
                              self->buffer_.commit(n);
                              self->ReadRequest();
                            });
  }

 private:
  void ReadRequest() {
    parser_.emplace();
    parser_->body_limit(16 * 1024 * 1024);
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return;
                              http::async_read(self->socket_, self->buffer_, *self->parser_,
                                               [self](beast::error_code ec, size_t) {
                                                 if (!ec) self->Answer();
                                               });
                            });
  }

  void Answer() {
    auto request = parser_->release();
    auto response =
        std::make_shared<http::response<http::string_body>>(http::status::ok, request.version());
    response->set(http::field::content_type, "application/x-amz-json-1.0");
    response->body() = answer_body;
    response->keep_alive(request.keep_alive());
    response->prepare_payload();
    http::async_write(socket_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, size_t) {
                        if (!ec && response->keep_alive()) self->Read();
                      });
  }

  tcp::socket socket_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
};

void Accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([&acceptor](beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      socket.set_option(tcp::no_delay(true));
      std::make_shared<Session>(std::move(socket))->Read();
    }
    Accept(acceptor);
  });
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s PORT [BODY_FILE]\n", argv[0]);
    return 2;
  }
  if (argc == 3) {
    std::ifstream file(argv[2], std::ios::binary);
    if (!file) {
      std::perror(argv[2]);
      return 1;
    }
    answer_body.assign(std::istreambuf_iterator<char>(file), {});
  }
  asio::io_context context(1);
  tcp::acceptor acceptor(context, tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                                static_cast<unsigned short>(std::atoi(argv[1]))));
  Accept(acceptor);
  context.run();
}
