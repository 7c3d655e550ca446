// Deadlines: connection deadlines kept without a timer per connection.
//
// Each connection records when its current read or write must have finished; one timer per
// I/O thread wakes every `tick`, while any connection is watched, and tells each connection
// whose deadline has passed. Re-arming a timer per connection for every read and write made
// asio reprogram its timerfd twice per request (a system call each: the earliest deadline
// changes every time); recording a deadline costs a clock read. A deadline fires between 0
// and one tick late.
//
// Single-threaded: a Deadlines and all its entries belong to one io_context, whose one
// thread calls every member (Entry constructors and destructors included).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>

namespace ddbd::server::http {

class Deadlines {
 public:
  using Clock = std::chrono::steady_clock;

  // A watched object (a connection). Linked into its list by Watch, unlinked on destruction.
  class Entry {
   public:
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

    // The current operation must finish within `from_now`.
    void SetDeadline(std::chrono::milliseconds from_now) { deadline_ = Clock::now() + from_now; }

   protected:
    explicit Entry(Deadlines& deadlines) : deadlines_(deadlines) {}
    virtual ~Entry();
    // Starts watching; on the list's thread.
    void Watch();
    // The deadline passed: end what is in progress (close the socket). Called once per
    // deadline set; must not destroy the entry synchronously.
    virtual void OnDeadline() = 0;

   private:
    friend class Deadlines;
    Deadlines& deadlines_;
    Entry* previous_ = nullptr;
    Entry* next_ = nullptr;
    bool watched_ = false;
    Clock::time_point deadline_ = Clock::time_point::max();
  };

  Deadlines(boost::asio::io_context& context, std::chrono::milliseconds tick);
  // Forgets the entries still watched: destroy it before its io_context (its timer belongs
  // there), whose destruction may then destroy the connections its handlers own.
  ~Deadlines();
  Deadlines(const Deadlines&) = delete;
  Deadlines& operator=(const Deadlines&) = delete;

  // The tick for these timeouts: an eighth of the shortest, within [10 ms, 250 ms].
  static std::chrono::milliseconds TickFor(std::chrono::milliseconds shortest_timeout);

 private:
  void Link(Entry& entry);
  void Unlink(Entry& entry);
  void Arm();
  void Sweep();

  boost::asio::steady_timer timer_;
  const std::chrono::milliseconds tick_;
  Entry* first_ = nullptr;
  bool armed_ = false;
};

}  // namespace ddbd::server::http
