#include "server/http/deadlines.h"

#include <algorithm>

namespace ddbd::server::http {

Deadlines::Entry::~Entry() {
  if (watched_) deadlines_.Unlink(*this);
}

void Deadlines::Entry::Watch() {
  if (!watched_) deadlines_.Link(*this);
}

Deadlines::Deadlines(boost::asio::io_context& context, std::chrono::milliseconds tick)
    : timer_(context), tick_(tick) {}

Deadlines::~Deadlines() {
  for (Entry* entry = first_; entry != nullptr; entry = entry->next_) entry->watched_ = false;
}

std::chrono::milliseconds Deadlines::TickFor(std::chrono::milliseconds shortest_timeout) {
  return std::clamp(shortest_timeout / 8, std::chrono::milliseconds(10),
                    std::chrono::milliseconds(250));
}

void Deadlines::Link(Entry& entry) {
  entry.watched_ = true;
  entry.previous_ = nullptr;
  entry.next_ = first_;
  if (first_ != nullptr) first_->previous_ = &entry;
  first_ = &entry;
  if (!armed_) Arm();
}

void Deadlines::Unlink(Entry& entry) {
  if (entry.previous_ != nullptr) {
    entry.previous_->next_ = entry.next_;
  } else {
    first_ = entry.next_;
  }
  if (entry.next_ != nullptr) entry.next_->previous_ = entry.previous_;
  entry.watched_ = false;
}

void Deadlines::Arm() {
  armed_ = true;
  timer_.expires_after(tick_);
  timer_.async_wait([this](boost::system::error_code ec) {
    armed_ = false;
    if (!ec) Sweep();
  });
}

// OnDeadline only closes sockets: the failed operations' handlers run later, from the
// io_context, so no entry is unlinked while the list is walked.
void Deadlines::Sweep() {
  const Clock::time_point now = Clock::now();
  for (Entry* entry = first_; entry != nullptr; entry = entry->next_) {
    if (entry->deadline_ <= now) {
      entry->deadline_ = Clock::time_point::max();
      entry->OnDeadline();
    }
  }
  if (first_ != nullptr) Arm();
}

}  // namespace ddbd::server::http
