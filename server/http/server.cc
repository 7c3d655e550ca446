// Beast plumbing: accept loop and per-connection sessions, over plain TCP or TLS (one
// Session template for both streams). Protocol decisions are in exchange.cc; this file only
// converts between Beast messages and HttpRequest/HttpReply.
#include "server/http/server.h"

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "model/log.h"
#include "server/http/deadlines.h"
#include "server/http/exchange.h"

namespace ddbd::server::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
namespace ssl = asio::ssl;

using PlainStream = tcp::socket;
using TlsStream = beast::ssl_stream<tcp::socket>;

constexpr size_t kBodyLimit = 16 * 1024 * 1024;
constexpr uint32_t kHeaderLimit = 16 * 1024;
constexpr std::chrono::milliseconds kLingerTimeout{5000};

// The Date header, formatted once per second per thread.
const std::string& HttpDate() {
  thread_local std::time_t formatted_at = 0;
  thread_local std::string value;
  std::time_t now = std::time(nullptr);
  if (now != formatted_at) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    value.assign(buf, n);
    formatted_at = now;
  }
  return value;
}

// Copies the headers HandleExchange looks at, in one pass over the request's fields; every
// header as well when `all` (signatures are verified: they cover the headers as sent).
void CopyHeaders(const bhttp::request<bhttp::string_body>& request, bool all, HttpRequest& out) {
  if (all) out.headers.reserve(16);
  for (const auto& field : request) {
    if (all) out.headers.emplace_back(field.name_string(), field.value());
    std::string* target = nullptr;
    switch (field.name()) {
      case bhttp::field::content_type:
        target = &out.content_type;
        break;
      case bhttp::field::content_encoding:
        target = &out.content_encoding;
        break;
      case bhttp::field::accept_encoding:
        target = &out.accept_encoding;
        break;
      case bhttp::field::authorization:
        target = &out.authorization;
        break;
      case bhttp::field::host:
        target = &out.host;
        break;
      case bhttp::field::origin:
        target = &out.origin;
        break;
      case bhttp::field::access_control_request_headers:
        target = &out.access_control_request_headers;
        break;
      case bhttp::field::access_control_request_method:
        target = &out.access_control_request_method;
        break;
      case bhttp::field::unknown:
        if (beast::iequals(field.name_string(), "X-Amz-Target")) {
          target = &out.target;
        } else if (beast::iequals(field.name_string(), "X-Ddbd-Namespace")) {
          target = &out.namespace_name;
        }
        break;
      default:
        break;
    }
    if (target) target->assign(field.value().data(), field.value().size());
  }
}

// Connections being served, shared by every I/O thread. A Session holds one slot for its
// whole life, its lingering close included, since its socket holds a file descriptor till then.
class ConnectionCount {
 public:
  class Slot {
   public:
    explicit Slot(std::atomic<int>& count) : count_(count) { count_.fetch_add(1); }
    ~Slot() { count_.fetch_sub(1); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    std::atomic<int>& count_;
  };

  int open() const { return open_.load(); }
  int refusing() const { return refusing_.load(); }
  std::unique_ptr<Slot> Serve() { return std::make_unique<Slot>(open_); }
  std::unique_ptr<Slot> Refuse() { return std::make_unique<Slot>(refusing_); }

 private:
  std::atomic<int> open_{0};
  std::atomic<int> refusing_{0};
};

// One connection, over a plain TCP stream or a TLS one. Every handler of a session runs on
// the single thread of the io_context that owns its socket, so a session needs no strand.
// Each read and write has a deadline (ServerOptions); when one passes, the context's
// Deadlines closes the socket and the operation fails.
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>>, private Deadlines::Entry {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  // `stream_args`: the accepted socket, plus the TLS context for a TLS stream.
  template <class... StreamArgs>
  Session(Service& service, const ServerOptions& options, Deadlines& deadlines,
          std::unique_ptr<ConnectionCount::Slot> slot, StreamArgs&&... stream_args)
      : Deadlines::Entry(deadlines),
        stream_(std::forward<StreamArgs>(stream_args)...),
        service_(service),
        options_(options),
        slot_(std::move(slot)) {}

  // Start and Refuse run on the session's own thread (the Deadlines it joins is that
  // thread's).
  auto executor() { return Tcp().get_executor(); }

  void Start() {
    Watch();
    Handshake(options_.header_timeout, [](Session& self) { self.ReadHeader(); });
  }

  // Answers 503 at once (the request, if any, is never read), then closes, lingering only
  // briefly: a flood of refused connections must not hold descriptors for long.
  void Refuse() {
    Watch();
    linger_ = kRefusalLinger;
    Handshake(kRefusalLinger, [](Session& self) {
      self.Send(ConnectionLimitReply(self.options_.max_connections), false, 11);
    });
  }

 private:
  using std::enable_shared_from_this<Session<Stream>>::shared_from_this;

  // The TCP socket under the TLS stream (or the stream itself).
  tcp::socket& Tcp() { return beast::get_lowest_layer(stream_); }

  void OnDeadline() override {
    beast::error_code ignored;
    Tcp().close(ignored);
  }

  // A TLS stream's handshake, within `deadline`, before `next`; plain streams go on at once.
  template <class Next>
  void Handshake(std::chrono::milliseconds deadline, Next next) {
    if constexpr (kTls) {
      SetDeadline(deadline);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = shared_from_this(), next](beast::error_code ec) {
                                if (ec) return self->OnDeadline();
                                next(*self);
                              });
    } else {
      next(*this);
    }
  }

  // Between requests of a kept-alive connection: wait (up to the idle timeout) for the next
  // request's first bytes, unless a pipelining client has already sent them.
  void Read() {
    if (buffer_.size() > 0) return ReadHeader();
    SetDeadline(options_.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Close();
                              self->buffer_.commit(n);
                              self->ReadHeader();
                            });
  }

  void ReadHeader() {
    parser_.emplace();
    parser_->body_limit(kBodyLimit);
    parser_->header_limit(kHeaderLimit);
    SetDeadline(options_.header_timeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  // Clients such as curl send "Expect: 100-continue" with larger bodies and wait (a second,
  // for curl) for the interim reply before sending the body.
  void OnHeader(beast::error_code ec, size_t) {
    if (ec) return OnRead(ec, 0);
    // A Transfer-Encoding whose last coding is not chunked leaves the body's length unknown
    // (RFC 9112 §6.3): refused, like any other broken framing.
    if (!parser_->chunked() && parser_->get().count(bhttp::field::transfer_encoding) > 0) {
      return Fail(400);
    }
    SetDeadline(options_.body_timeout);
    auto expect = parser_->get().find(bhttp::field::expect);
    if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = shared_from_this()](beast::error_code ec, size_t) {
                          if (ec) return self->Close();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    bhttp::async_read(stream_, buffer_, *parser_,
                      beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t) {
    if (ec == bhttp::error::body_limit) return Fail(413);
    if (IsFramingError(ec)) return Fail(400);
    if (ec) return Close();  // the client went away, or a deadline passed
    auto request = parser_->release();
    HttpRequest in;
    in.method = std::string(request.method_string());
    in.path = std::string(request.target());
    CopyHeaders(request, service_.options().credentials != nullptr, in);
    in.body = std::move(request.body());
    HttpReply reply = HandleExchange(service_, in);
    if (reply.delay.count() > 0) {
      // An injected delay: a timer, so the I/O thread serves other connections meanwhile.
      auto timer = std::make_shared<asio::steady_timer>(stream_.get_executor(), reply.delay);
      timer->async_wait([self = shared_from_this(), timer, reply = std::move(reply),
                         keep_alive = request.keep_alive(),
                         version = request.version()](beast::error_code) mutable {
        self->Send(std::move(reply), keep_alive, version);
      });
      return;
    }
    Send(std::move(reply), request.keep_alive(), request.version());
  }

  // A request the parser refused: a broken request line, header, Content-Length or chunk,
  // or a header over the limit. Not the end of the stream before or inside a message.
  static bool IsFramingError(beast::error_code ec) {
    return ec && ec.category() == beast::error_code(bhttp::error::bad_method).category() &&
           ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
  }

  void Send(HttpReply reply, bool keep_alive, unsigned version) {
    auto response = std::make_shared<bhttp::response<bhttp::string_body>>(
        static_cast<bhttp::status>(reply.status), version);
    response->set(bhttp::field::server, "ddbd");
    response->set(bhttp::field::date, HttpDate());
    if (!reply.content_type.empty()) response->set(bhttp::field::content_type, reply.content_type);
    for (auto& [name, value] : reply.headers) response->set(name, value);
    response->body() = std::move(reply.body);
    response->keep_alive(keep_alive);
    response->prepare_payload();
    SetDeadline(options_.body_timeout);
    bhttp::async_write(stream_, *response,
                       [self = shared_from_this(), response](beast::error_code ec, size_t) {
                         if (ec || !response->keep_alive()) return self->Close();
                         self->Read();
                       });
  }

  // Answers a request that could not be read whole, then closes the connection.
  void Fail(int status) { Send(FramingErrorReply(status), false, 11); }

  // Lingering close: after our half-close, keep reading (and discarding) until the peer
  // closes too, or for kLingerTimeout at most, so a client still sending a rejected body gets
  // to read the reply instead of a connection reset. A TLS stream says close_notify instead
  // and waits (as long at most) for the peer's.
  void Close() {
    SetDeadline(linger_);
    if constexpr (kTls) {
      stream_.async_shutdown(
          [self = shared_from_this()](beast::error_code) { self->OnDeadline(); });
    } else {
      beast::error_code ec;
      Tcp().shutdown(tcp::socket::shutdown_send, ec);
      if (ec) return;
      Drain();
    }
  }

  void Drain() {
    // Left uninitialised: the bytes are discarded, and zero-filling 64 KB cost a client that
    // closes after each request more instructions than its request (callgrind).
    if (!drain_buffer_) drain_buffer_ = std::make_unique_for_overwrite<char[]>(kDrainChunk);
    Tcp().async_read_some(asio::buffer(drain_buffer_.get(), kDrainChunk),
                          [self = shared_from_this()](beast::error_code ec, size_t) {
                            if (!ec) self->Drain();
                          });
  }

  static constexpr size_t kReadChunk = 4096;
  static constexpr size_t kDrainChunk = 64 * 1024;
  static constexpr std::chrono::milliseconds kRefusalLinger{1000};

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  Service& service_;
  const ServerOptions& options_;
  std::unique_ptr<ConnectionCount::Slot> slot_;
  std::unique_ptr<char[]> drain_buffer_;
  std::chrono::milliseconds linger_ = kLingerTimeout;
};

}  // namespace

// One io_context per thread, each run by exactly one thread: connections are spread over
// them round-robin, and a connection's handlers never need synchronisation.
struct HttpServer::Impl {
  Impl(Service& s, ServerOptions o) : service(s), options(std::move(o)) {
    const auto tick = Deadlines::TickFor(
        std::min({options.header_timeout, options.body_timeout, options.idle_timeout}));
    for (int i = 0; i < std::max(1, options.threads); ++i) {
      contexts.push_back(std::make_unique<asio::io_context>(1));
      guards.emplace_back(asio::make_work_guard(*contexts.back()));
      deadlines.push_back(std::make_unique<Deadlines>(*contexts.back(), tick));
    }
    acceptor.emplace(*contexts[0]);
    accept_timer.emplace(*contexts[0]);
  }

  void Accept() {
    const size_t target = next_context++ % contexts.size();
    acceptor->async_accept(*contexts[target],
                           [this, target](beast::error_code ec, tcp::socket socket) {
                             if (!acceptor->is_open()) return;
                             if (ec) return AcceptLater(ec);
                             accept_delay = std::chrono::milliseconds(0);
                             Admit(std::move(socket), *deadlines[target]);
                             Accept();
                           });
  }

  // Out of file descriptors (EMFILE, ENFILE) or memory: the connection stays queued in the
  // kernel, so accepting again at once would fail again at once. Wait, doubling the wait.
  void AcceptLater(beast::error_code ec) {
    if (accept_delay.count() == 0) {
      log::Warning("accepting connections failed (%s); retrying with back-off",
                   ec.message().c_str());
    }
    accept_delay = std::clamp(accept_delay * 2, kMinAcceptDelay, kMaxAcceptDelay);
    accept_timer->expires_after(accept_delay);
    accept_timer->async_wait([this](beast::error_code ec) {
      if (!ec && acceptor->is_open()) Accept();
    });
  }

  // Serves the connection, refuses it with a 503 beyond the limit, or (when even the few
  // refusals in progress are at their limit) closes it at once.
  // `deadlines`: those of the context the socket belongs to.
  void Admit(tcp::socket socket, Deadlines& deadlines) {
    beast::error_code ignored;
    if (connections.open() < options.max_connections) {
      socket.set_option(tcp::no_delay(true), ignored);
      Launch(std::move(socket), deadlines, connections.Serve(), /*refuse=*/false);
    } else if (connections.refusing() < kMaxRefusing) {
      Launch(std::move(socket), deadlines, connections.Refuse(), /*refuse=*/true);
    } else {
      socket.close(ignored);
    }
  }

  void Launch(tcp::socket socket, Deadlines& deadlines, std::unique_ptr<ConnectionCount::Slot> slot,
              bool refuse) {
    if (tls) {
      StartOnItsThread(std::make_shared<Session<TlsStream>>(
                           service, options, deadlines, std::move(slot), std::move(socket), *tls),
                       refuse);
    } else {
      StartOnItsThread(std::make_shared<Session<PlainStream>>(service, options, deadlines,
                                                              std::move(slot), std::move(socket)),
                       refuse);
    }
  }

  // The acceptor runs on the first context; a session starts on its socket's.
  template <class SessionType>
  static void StartOnItsThread(std::shared_ptr<SessionType> session, bool refuse) {
    auto executor = session->executor();
    asio::post(executor, [session = std::move(session), refuse] {
      refuse ? session->Refuse() : session->Start();
    });
  }

  static constexpr auto kMinAcceptDelay = std::chrono::milliseconds(10);
  static constexpr auto kMaxAcceptDelay = std::chrono::milliseconds(1000);
  static constexpr int kMaxRefusing = 16;

  Service& service;
  ServerOptions options;
  ConnectionCount connections;  // outlives the sessions, which the contexts own
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  // One per context, destroyed before them (see ~Deadlines).
  std::vector<std::unique_ptr<Deadlines>> deadlines;
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_timer;
  std::optional<ssl::context> tls;  // set when serving HTTPS
  std::chrono::milliseconds accept_delay{0};
  size_t next_context = 0;
};

HttpServer::HttpServer(Service& service, ServerOptions options)
    : impl_(std::make_unique<Impl>(service, std::move(options))) {}
HttpServer::~HttpServer() = default;

namespace {

// The server's TLS context: TLS 1.2 and later, the certificate chain and key in PEM files.
Result<ssl::context> TlsContext(const ServerOptions& options) {
  ssl::context context(ssl::context::tls_server);
  context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                      ssl::context::single_dh_use);
  beast::error_code ec;
  context.use_certificate_chain_file(options.tls_certificate, ec);
  if (ec) {
    return Error::Internal("cannot load TLS certificate " + options.tls_certificate + ": " +
                           ec.message());
  }
  context.use_private_key_file(options.tls_private_key, ssl::context::pem, ec);
  if (ec) {
    return Error::Internal("cannot load TLS private key " + options.tls_private_key + ": " +
                           ec.message());
  }
  return context;
}

}  // namespace

Status HttpServer::Start() {
  if (impl_->options.tls()) {
    DDBD_ASSIGN_OR_RETURN(ssl::context context, TlsContext(impl_->options));
    impl_->tls.emplace(std::move(context));
  }
  beast::error_code ec;
  auto address = asio::ip::make_address(impl_->options.address, ec);
  if (ec) return Error::Internal("invalid listen address: " + impl_->options.address);
  tcp::endpoint endpoint(address, impl_->options.port);
  auto& acceptor = *impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error::Internal("cannot listen on " + impl_->options.address + ":" +
                           std::to_string(impl_->options.port) + ": " + ec.message());
  }
  impl_->service.metrics().SetOpenConnections([this] { return impl_->connections.open(); });
  impl_->Accept();
  return OkStatus();
}

uint16_t HttpServer::port() const { return impl_->acceptor->local_endpoint().port(); }

void HttpServer::Run() {
  std::vector<std::thread> threads;
  for (size_t i = 1; i < impl_->contexts.size(); ++i) {
    threads.emplace_back([context = impl_->contexts[i].get()] { context->run(); });
  }
  impl_->contexts[0]->run();
  for (auto& t : threads) t.join();
}

void HttpServer::Stop() {
  asio::post(*impl_->contexts[0], [this] {
    beast::error_code ec;
    impl_->acceptor->close(ec);
    impl_->accept_timer->cancel();
    for (auto& context : impl_->contexts) context->stop();
  });
}

}  // namespace ddbd::server::http
