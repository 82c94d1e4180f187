#include <tine/distributed/rank_worker.hpp>

#include <sys/prctl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <tine/core/stacklet.hpp>
#include <tine/distributed/remote_error.hpp>

namespace tine::mpi::detail {
namespace {

using tine::detail::frame;

constexpr int arrival_tag = 1;

/// A deque item: the start of a frame's range (64-byte aligned, below 2^47) in its low bits and
/// the range's size in 64-byte units above bit 42 (0: the range spans two stacklets).
constexpr unsigned size_shift = 42;
constexpr std::uint64_t address_mask = (std::uint64_t{1} << size_shift) - 1;
constexpr std::uint64_t max_units = (std::uint64_t{1} << (64 - size_shift)) - 1;

std::uint64_t make_item(const std::byte* start, std::size_t bytes) noexcept {
  std::uint64_t units = bytes / tine::detail::stack_alignment;
  if (units > max_units) {
    units = 0;
  }
  return (reinterpret_cast<std::uintptr_t>(start) >> 6) | (units << size_shift);
}

std::byte* item_start(std::uint64_t item) noexcept {
  return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>((item & address_mask) << 6));
}

std::size_t item_bytes(std::uint64_t item) noexcept {
  return static_cast<std::size_t>(item >> size_shift) * tine::detail::stack_alignment;
}

std::byte* start_of(frame* f) noexcept {
  return static_cast<std::byte*>(tine::detail::handle_of(f).address());
}

/// The frame header of the coroutine frame at `start` (handle_of's inverse).
frame* frame_at(std::byte* start) noexcept {
  return static_cast<frame*>(__builtin_coro_promise(start, alignof(frame), false));
}

/// What an arrival message carries before its result bytes and exception message.
struct arrival_header {
  std::uint64_t frame;
  std::uint64_t strands;
  std::uint64_t result_at;
  std::uint32_t result_bytes;
  std::uint32_t message_bytes;
  std::uint32_t has_exception;
  std::uint32_t unused;
};

constexpr std::size_t message_buffer_bytes = std::size_t{1} << 20;

}  // namespace

rank_worker::rank_worker(MPI_Comm comm, uni_address_region& region, rma_deque& deque,
                         worker_context& context)
    : m_region(region),
      m_deque(deque),
      m_context(context),
      m_codec{[](void* self, std::exception_ptr e) noexcept {
                return static_cast<rank_worker*>(self)->encode(std::move(e));
              },
              [](void* self, std::uintptr_t token) noexcept {
                return static_cast<rank_worker*>(self)->decode(token);
              },
              this} {
  MPI_Comm_dup(comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  MPI_Comm_size(m_comm, &m_size);
  m_messages = static_cast<std::byte*>(m_region.allocate(message_buffer_bytes));
  if (m_messages == nullptr) {
    MPI_Comm_free(&m_comm);
    throw std::bad_alloc();
  }
  if (const char* us = std::getenv("TINE_MPI_PROGRESS_US"); us != nullptr && std::atoi(us) > 0) {
    m_interval = std::chrono::microseconds(std::atoi(us));
  }
  m_server = std::thread([this] { serve(); });
}

rank_worker::~rank_worker() {
  MPI_Barrier(m_comm);  // no arrival is in flight
  m_stop.store(true, std::memory_order_relaxed);
  m_server.join();
  m_region.deallocate(m_messages, message_buffer_bytes);
  MPI_Comm_free(&m_comm);
}

void rank_worker::push(frame* parent, void* child) {
  std::byte* start = start_of(parent);
  std::size_t bytes = 0;
  // A frame this worker stole keeps the size it came with (no lookup while it holds none).
  const auto held = m_held.empty() ? m_held.end() : m_held.find(parent);
  if (held != m_held.end()) {
    bytes = held->second;
  } else if (home_of(parent) == m_rank) {
    // The parent's range ends where the child just forked begins, when both are in the stacklet
    // the parent's scope opened on; if the child began a new stacklet, where that one's use ends.
    tine::detail::stacklet* s = parent->stack;
    auto* c = static_cast<std::byte*>(child);
    const auto in = [s](const std::byte* p) { return p >= s->base() && p < s->end; };
    if (s != nullptr && in(start)) {
      bytes = static_cast<std::size_t>((c != nullptr && in(c) && c > start ? c : s->sp) - start);
    }
  } else {
    tine::detail::fatal("tine::mpi_pool: a frame of another rank forked here without being stolen");
  }
  if (!m_deque.push(make_item(start, bytes))) {
    throw std::length_error("tine::mpi_pool: this rank's deque of continuations is full (" +
                            std::to_string(m_deque.capacity() - 1) +
                            "): construct the pool with a larger deque capacity");
  }
}

std::optional<frame*> rank_worker::pop() noexcept {
  const std::optional<std::uint64_t> item = m_deque.pop();
  if (!item.has_value()) {
    return std::nullopt;
  }
  return frame_at(item_start(*item));
}

bool rank_worker::arrive(frame* f, join_arrival& a) noexcept {
  const int home = home_of(f);
  if (!a.frame_itself) {
    // A child of `f` ended here and `f` was stolen from this rank since it was forked.
    m_held.erase(f);  // it left this rank
    if (home == m_rank) {
      patch result{static_cast<std::byte*>(const_cast<void*>(a.result)), {}};
      if (a.result != nullptr && a.result_bytes != 0) {
        const auto* from = static_cast<const std::byte*>(a.result);
        result.bytes.assign(from, from + a.result_bytes);
      }
      return count_at_home(f, a.strands, result.bytes.empty() ? nullptr : &result,
                           std::move(a.exception));
    }
    send_arrival(f, a.strands, a.result, a.result_bytes, a.exception);
    return false;
  }
  // `f` itself reached its join.
  const auto it = m_held.find(f);
  if (home == m_rank) {
    if (it != m_held.end()) {
      m_held.erase(it);
    }
    return count_at_home(f, a.strands, nullptr, nullptr);
  }
  if (it == m_held.end()) {
    tine::detail::fatal("tine::mpi_pool: a frame of another rank joined here without being stolen");
  }
  // Its bytes go home first, complete there before the arrival is sent.
  m_region.store(home, start_of(f), it->second);
  m_region_operations.fetch_add(1, std::memory_order_relaxed);
  m_held.erase(it);
  // (A frame reaches its end inside a scope only by throwing: a task that returns a value joins
  // first. So no value goes home with it.)
  send_arrival(f, a.strands, nullptr, 0, nullptr);
  return false;
}

bool rank_worker::count_at_home(frame* f, std::uint64_t strands, patch* result,
                                std::exception_ptr exception) {
  join_record done;
  {
    std::lock_guard lock(m_mutex);
    join_record& r = m_records[f];
    r.count += strands;
    if (result != nullptr) {
      r.patches.push_back(std::move(*result));
    }
    if (exception && !r.exception) {
      r.exception = std::move(exception);
    }
    if (r.count != frame::max_joins) {
      return false;
    }
    done = std::move(r);
    m_records.erase(f);
  }
  // Complete: every strand has arrived and the frame's bytes are here (its own arrival follows
  // the store of its bytes). The results written elsewhere go in now. (Outside the lock: storing
  // the exception encodes it, which takes the lock.)
  for (const patch& p : done.patches) {
    std::memcpy(p.at, p.bytes.data(), p.bytes.size());
  }
  if (done.exception) {
    f->stash_exception(std::move(done.exception));
  }
  return true;
}

void rank_worker::send_arrival(frame* f, std::uint32_t strands, const void* result,
                               std::uint32_t result_bytes, const std::exception_ptr& exception) {
  std::string message;
  if (exception) {
    message = message_of(exception);
  }
  arrival_header h{};
  h.frame = reinterpret_cast<std::uintptr_t>(f);
  h.strands = strands;
  h.result_at = reinterpret_cast<std::uintptr_t>(result);
  h.result_bytes = result != nullptr ? result_bytes : 0;
  h.message_bytes = static_cast<std::uint32_t>(message.size());
  h.has_exception = exception ? 1 : 0;
  std::vector<std::byte> buffer(sizeof h + h.result_bytes + message.size());
  std::memcpy(buffer.data(), &h, sizeof h);
  if (h.result_bytes != 0) {
    std::memcpy(buffer.data() + sizeof h, result, h.result_bytes);
  }
  if (!message.empty()) {
    std::memcpy(buffer.data() + sizeof h + h.result_bytes, message.data(), message.size());
  }
  MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, home_of(f), arrival_tag,
           m_comm);
  ++m_remote_joins;
}

void rank_worker::serve() {
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // 1 us: the sleeps below are short
  tine::detail::set_exception_codec(&m_codec);
  while (!m_stop.load(std::memory_order_relaxed)) {
    int flag = 0;
    MPI_Status status;
    // Entering MPI also completes one-sided operations other ranks aim at this rank.
    MPI_Iprobe(MPI_ANY_SOURCE, arrival_tag, m_comm, &flag, &status);
    if (flag != 0) {
      receive(status);
      continue;
    }
    std::this_thread::sleep_for(m_interval);
  }
}

void rank_worker::receive(const MPI_Status& status) {
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<std::byte> buffer(static_cast<std::size_t>(count));
  MPI_Recv(buffer.data(), count, MPI_BYTE, status.MPI_SOURCE, arrival_tag, m_comm,
           MPI_STATUS_IGNORE);
  arrival_header h{};
  std::memcpy(&h, buffer.data(), sizeof h);
  auto* f = reinterpret_cast<frame*>(static_cast<std::uintptr_t>(h.frame));
  patch result{reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(h.result_at)), {}};
  if (h.result_bytes != 0) {
    const std::byte* from = buffer.data() + sizeof h;
    result.bytes.assign(from, from + h.result_bytes);
  }
  std::exception_ptr exception;
  if (h.has_exception != 0) {
    const auto* text = reinterpret_cast<const char*>(buffer.data() + sizeof h + h.result_bytes);
    exception = std::make_exception_ptr(
        remote_error(std::string(text, h.message_bytes), status.MPI_SOURCE));
  }
  if (count_at_home(f, h.strands, result.bytes.empty() ? nullptr : &result, std::move(exception))) {
    std::lock_guard lock(m_mutex);
    m_ready.push_back(f);
  }
}

bool rank_worker::run_ready() {
  frame* f = nullptr;
  {
    std::lock_guard lock(m_mutex);
    if (m_ready.empty()) {
      return false;
    }
    f = m_ready.front();
    m_ready.pop_front();
  }
  m_context.resume_joined(f);
  return true;
}

bool rank_worker::try_steal(int victim) {
  ++m_attempts;
  const auto start_time = std::chrono::steady_clock::now();
  const rma_deque::steal_result got = m_deque.steal(victim);
  if (got.what != rma_deque::status::success) {
    return false;
  }
  std::byte* start = item_start(got.value);
  const std::size_t bytes = item_bytes(got.value);
  if (bytes == 0) {
    tine::detail::fatal(
        "tine::mpi_pool: a continuation whose frame and stack allocations span two stacklets (or "
        "exceed 256 MiB) was stolen, and cannot move to another rank");
  }
  m_region.fetch(victim, start, bytes);
  m_region_operations.fetch_add(1, std::memory_order_relaxed);
  if (m_latencies.size() < max_latency_samples) {
    m_latencies.push_back(
        static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - start_time)
                                       .count()));
  }
  frame* f = frame_at(start);
  m_held[f] = static_cast<std::uint32_t>(bytes);
  ++m_steals;
  m_bytes += bytes;
  try {
    m_context.resume_stolen(f);
  } catch (const std::bad_alloc&) {
    tine::detail::fatal("tine::mpi_pool: no memory for a stack to run a stolen continuation on");
  }
  return true;
}

void rank_worker::end_of_root() noexcept {
  std::lock_guard lock(m_mutex);
  if (!m_records.empty() || !m_ready.empty() || !m_held.empty()) {
    std::fprintf(stderr,
                 "tine: rank %d: %zu join records, %zu frames to resume and %zu stolen frames "
                 "outstanding after a root task's end\n",
                 m_rank, m_records.size(), m_ready.size(), m_held.size());
    tine::detail::fatal(
        "tine::mpi_pool: internal error: a root task ended with joins or stolen frames "
        "outstanding");
  }
  m_originals.clear();
  m_messages_used = 0;
}

std::uintptr_t rank_worker::encode(std::exception_ptr e) noexcept {
  std::string message = message_of(e);
  std::lock_guard lock(m_mutex);
  const std::size_t need = (sizeof(std::uint64_t) + message.size() + 7) / 8 * 8;
  if (m_messages_used + need > message_buffer_bytes) {
    return 0;
  }
  std::byte* slot = m_messages + m_messages_used;
  m_messages_used += need;
  const std::uint64_t length = message.size();
  std::memcpy(slot, &length, sizeof length);
  std::memcpy(slot + sizeof length, message.data(), message.size());
  const auto token = reinterpret_cast<std::uintptr_t>(slot);
  m_originals.emplace(token, std::move(e));
  return token;
}

std::exception_ptr rank_worker::decode(std::uintptr_t token) noexcept {
  if (token == 0) {
    return std::make_exception_ptr(remote_error(
        "an exception whose message did not fit its rank's buffer (1 MiB per root task)", -1));
  }
  auto* slot = reinterpret_cast<std::byte*>(token);
  const int home = m_region.home_rank(slot);
  if (home == m_rank) {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_originals.find(token); it != m_originals.end()) {
      std::exception_ptr e = std::move(it->second);
      m_originals.erase(it);
      return e;
    }
  } else {
    // Into this rank's memory at the same address: the message buffer of `home`, which no frame
    // of this rank's overlaps.
    m_region.fetch(home, slot, sizeof(std::uint64_t));
    m_region_operations.fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t length = 0;
  std::memcpy(&length, slot, sizeof length);
  if (home != m_rank && length != 0) {
    m_region.fetch(home, slot + sizeof length, length);
    m_region_operations.fetch_add(1, std::memory_order_relaxed);
  }
  return std::make_exception_ptr(
      remote_error(std::string(reinterpret_cast<const char*>(slot + sizeof length), length), home));
}

}  // namespace tine::mpi::detail
