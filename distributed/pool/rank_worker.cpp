#include <tine/distributed/pool/rank_worker.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <tine/distributed/foundation/exception_transport.hpp>
#include <tine/distributed/pool/messages.hpp>
#include <tine/distributed/pool/pool_hooks.hpp>
#include <tine/distributed/pool/run_taken.hpp>

namespace tine::mpi::detail {

using tine::detail::frame;

rank_worker::rank_worker(MPI_Comm comm, uni_address_region& region)
    : m_region(region),
      m_codec{[](void* self, std::exception_ptr e) noexcept {
                return static_cast<rank_worker*>(self)->encode(std::move(e));
              },
              [](void* self, std::uintptr_t token) noexcept {
                return static_cast<rank_worker*>(self)->decode(token);
              },
              this},
      // NOLINTNEXTLINE(bugprone-throw-keyword-missing): a member, not an exception to throw
      m_exceptions(region) {
  MPI_Comm_dup(comm, &m_comm);
  MPI_Comm_rank(m_comm, &m_rank);
  MPI_Comm_size(m_comm, &m_size);
  if (const char* us = std::getenv("TINE_MPI_PROGRESS_US"); us != nullptr && std::atoi(us) > 0) {
    m_interval = std::chrono::microseconds(std::atoi(us));
  }
}

void rank_worker::start(progress_thread::poll_handler on_poll) {
  m_progress.emplace(
      m_comm, m_interval, [this](const MPI_Status& status) { receive(status); },
      std::move(on_poll));
}

rank_worker::~rank_worker() {
  MPI_Barrier(m_comm);  // no arrival or release is in flight
  m_progress.reset();
  m_exceptions.clear();
  MPI_Comm_free(&m_comm);
}

std::optional<std::uint64_t> rank_worker::item_for(frame* f, const void* child) {
  {
    // A frame this rank stole moves on with the item it came with: its range has not changed.
    std::lock_guard lock(m_mutex);
    if (const auto held = m_held.find(f); held != m_held.end()) {
      return held->second.item;
    }
  }
  if (home_of(f) != m_rank) {
    tine::detail::fatal("tine::mpi_pool: a frame of another rank forked here without being stolen");
  }
  // A frame of ours whose continuation was taken in this scope (by another worker of the rank,
  // or back from its lane when idle) runs on another stack than its own: its running
  // child is not where its allocations end, and on its own stacklet another worker may still
  // run an older child above them. Its range is not known: it stays on this rank. Nor is it
  // known without its child: a continuation given back to the deque by a pop that found another's
  // (no child named) has a child still running above it, often on another worker, and a range
  // up to the stacklet's top would carry that child's frame along, to be written back over the
  // live one when the frame returns home through a steal. (That lost arrivals at joins.)
  if (f->steals != 0 || child == nullptr) {
    return std::nullopt;
  }
  try {
    return item_at_home(f, child);
  } catch (const std::length_error&) {
    return std::nullopt;  // too large to move: it stays on this rank
  }
}

bool rank_worker::arrive(frame* f, join_arrival& a) noexcept {
  const int home = home_of(f);
  if (!a.frame_itself) {
    // A child of `f` ended here and `f` had been stolen since it was forked (by another rank,
    // or by another worker of this one).
    // The result's bytes as the child returned them: it wrote them into this rank's copy of `f`
    // too, but another worker of this rank that steals `f` back from another rank overwrites
    // that copy with the frame's bytes, perhaps before this reads it (join_arrival::returned).
    const void* bytes = a.returned != nullptr ? a.returned : a.result;
    if (home != m_rank) {
      send_arrival(f, a.strands, {a.result, bytes, a.result_bytes}, {}, a.exception);
      return false;
    }
    std::optional<patch> result;
    if (a.result != nullptr && a.result_bytes != 0) {
      // The copy of `f` here is overwritten when the frame's bytes come home; this goes in after.
      const auto* from = static_cast<const std::byte*>(bytes);
      result = patch{static_cast<std::byte*>(const_cast<void*>(a.result)),
                     {from, from + a.result_bytes}};
    }
    std::optional<join_record> done =
        count_at_home(f, a.strands, {}, std::move(result), std::move(a.exception));
    if (!done) {
      return false;
    }
    apply(f, *done);
    return true;
  }
  // `f` itself reached its join.
  if (home == m_rank) {
    std::optional<join_record> done = count_at_home(f, a.strands, {}, std::nullopt, nullptr);
    if (!done) {
      return false;
    }
    apply(f, *done);
    return true;
  }
  std::vector<range_piece> pieces;
  {
    std::lock_guard lock(m_mutex);
    const auto held = m_held.find(f);
    if (held == m_held.end()) {
      tine::detail::fatal(
          "tine::mpi_pool: a frame of another rank joined here without being stolen");
    }
    pieces = std::move(held->second.pieces);
    m_held.erase(held);
  }
  // Its bytes go home with its arrival. (A frame reaches its end inside a scope only by
  // throwing: a task that returns a value joins first. So no value goes home with it.)
  send_arrival(f, a.strands, {}, pieces, nullptr);
  return false;
}

std::optional<rank_worker::join_record> rank_worker::count_at_home(frame* f, std::uint64_t strands,
                                                                   std::vector<patch> frame_bytes,
                                                                   std::optional<patch> result,
                                                                   std::exception_ptr exception) {
  std::lock_guard lock(m_mutex);
  join_record& r = m_records[f];
  r.count += strands;
  if (!frame_bytes.empty()) {
    r.frame_bytes = std::move(frame_bytes);
  }
  if (result) {
    r.results.push_back(std::move(*result));
  }
  if (exception && !r.exception) {
    r.exception = std::move(exception);
  }
  if (r.count != frame::max_joins) {
    return std::nullopt;
  }
  join_record done = std::move(r);
  m_records.erase(f);
  // `f` is home for good: if this rank had stolen it back from another, the item and pieces it
  // came with are stale (the frame may allocate more before its next scope).
  m_held.erase(f);
  return done;
}

void rank_worker::apply(frame* f, join_record& record) noexcept {
  // Every strand has arrived: the frame's bytes as its last strand left them, then the results
  // its children wrote into copies of it elsewhere (or into this copy while it was away).
  for (const patch& p : record.frame_bytes) {
    std::memcpy(p.at, p.bytes.data(), p.bytes.size());
  }
  for (const patch& p : record.results) {
    std::memcpy(p.at, p.bytes.data(), p.bytes.size());
  }
  if (record.exception) {
    f->stash_exception(std::move(record.exception));
  }
  // The frame goes on after strands that may have run on other ranks: what this rank's layers
  // above hold of other ranks' data may predate their writes.
  announce_acquire(acquire_point::join);
}

void rank_worker::send_arrival(frame* f, std::uint32_t strands, const result_bytes& result,
                               const std::vector<range_piece>& pieces,
                               const std::exception_ptr& exception) {
  std::string description;
  if (exception) {
    try {
      description = serialise_exception(exception, m_rank);
    } catch (...) {
      description.clear();  // no memory: the home rebuilds a std::bad_alloc (below)
    }
  }
  arrival_out a;
  a.frame = reinterpret_cast<std::uintptr_t>(f);
  a.strands = strands;
  a.result_at = result.at;
  a.result = {static_cast<const std::byte*>(result.bytes), result.at != nullptr ? result.size : 0};
  a.pieces = pieces;
  a.threw = exception != nullptr;
  a.exception = description;
  std::vector<std::byte> buffer;
  try {
    buffer = encode_arrival(a);
  } catch (...) {
    // An arrival that cannot be sent loses a join: nothing sane can go on.
    tine::detail::fatal("tine::mpi_pool: no memory to send an arrival to a frame's home rank");
  }
  MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, home_of(f), arrival_tag,
           m_comm);
  m_remote_joins.fetch_add(1, std::memory_order_relaxed);
}

void rank_worker::receive(const MPI_Status& status) {
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<std::byte> buffer(static_cast<std::size_t>(count));
  MPI_Recv(buffer.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, m_comm,
           MPI_STATUS_IGNORE);
  if (status.MPI_TAG == release_tag) {
    const release_message release = decode_release(buffer);
    // A release that arrives after its root ended names an entry freed at that end (and perhaps
    // reused since): ignored.
    std::lock_guard lock(m_mutex);
    if (release.generation == m_generation) {
      m_exceptions.release(static_cast<std::uintptr_t>(release.token));
    }
    return;
  }
  arrival_in a = decode_arrival(buffer);
  auto* f = reinterpret_cast<frame*>(a.frame);
  std::exception_ptr exception;
  if (a.threw && a.exception.empty()) {
    exception = std::make_exception_ptr(std::bad_alloc());
  } else if (a.threw) {
    exception = rebuild_exception(a.exception);
  }
  std::optional<join_record> done =
      count_at_home(f, a.strands, std::move(a.pieces), std::move(a.result), std::move(exception));
  if (done) {
    std::lock_guard lock(m_mutex);
    m_ready.emplace_back(f, std::move(*done));
  }
}

bool rank_worker::run_ready(worker_context& context) {
  {
    std::lock_guard lock(m_exceptions_mutex);
    m_exceptions.collect();
  }
  std::optional<std::pair<frame*, join_record>> next;
  {
    std::lock_guard lock(m_mutex);
    if (m_ready.empty()) {
      return false;
    }
    next.emplace(std::move(m_ready.front()));
    m_ready.pop_front();
  }
  apply(next->first, next->second);
  context.resume_joined(next->first);
  return true;
}

bool rank_worker::try_steal(int victim, offer_slot& slot, worker_context& context) {
  if (victim != m_rank) {
    m_attempts.fetch_add(1, std::memory_order_relaxed);
  }
  const auto start_time = std::chrono::steady_clock::now();
  const std::optional<std::uint64_t> got = slot.take(victim);
  if (!got.has_value()) {
    return false;
  }
  frame* f = item_frame(*got);
  // From another rank: its bytes come here. (From another worker's lane of this rank, they are
  // here, and so is its entry if the frame came from another rank.)
  if (victim != m_rank) {
    std::uint64_t operations = 0;
    std::vector<range_piece> pieces = fetch_range(m_region, victim, *got, operations);
    m_region_operations.fetch_add(operations, std::memory_order_relaxed);
    const auto took =
        static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - start_time)
                                       .count());
    {
      std::lock_guard lock(m_latencies_mutex);
      if (m_latencies.size() < max_latency_samples) {
        m_latencies.push_back(took);
      }
    }
    std::uint64_t bytes = 0;
    for (const range_piece& p : pieces) {
      bytes += p.bytes;
    }
    m_bytes.fetch_add(bytes, std::memory_order_relaxed);
    m_pieced_steals.fetch_add(pieces.size() > 1 ? 1 : 0, std::memory_order_relaxed);
    m_steals.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard lock(m_mutex);
      m_held[f] = held_frame{*got, std::move(pieces)};
    }
    // The continuation follows what its strand did on the victim's rank: what this rank's
    // layers above hold of other ranks' data may predate those writes.
    announce_acquire(acquire_point::steal);
  }
  run_taken(context, f);
  return true;
}

void rank_worker::end_of_root() noexcept {
  {
    std::lock_guard lock(m_mutex);
    if (!m_records.empty() || !m_ready.empty()) {
      std::fprintf(stderr,
                   "tine: rank %d: %zu join records and %zu frames to resume outstanding after a "
                   "root task's end\n",
                   m_rank, m_records.size(), m_ready.size());
      tine::detail::fatal(
          "tine::mpi_pool: internal error: a root task ended with joins outstanding");
    }
    // Entries of frames that left again through an offer, unseen.
    m_held.clear();
    // Under the lock the progress thread checks it with: every release of this root's is in the
    // store's list before the entries are freed, and none comes after.
    ++m_generation;
  }
  std::lock_guard lock(m_exceptions_mutex);
  m_exceptions.clear();
}

std::uintptr_t rank_worker::encode(std::exception_ptr e) noexcept {
  std::lock_guard lock(m_exceptions_mutex);
  return m_exceptions.put(std::move(e));
}

std::exception_ptr rank_worker::decode(std::uintptr_t token) noexcept {
  int release_to = -1;
  std::uint64_t operations = 0;
  std::exception_ptr e;
  {
    std::lock_guard lock(m_exceptions_mutex);
    e = m_exceptions.take(token, release_to, operations);
  }
  m_region_operations.fetch_add(operations, std::memory_order_relaxed);
  if (release_to >= 0) {
    std::uint64_t generation = 0;
    {
      std::lock_guard lock(m_mutex);
      generation = m_generation;
    }
    const release_bytes message = encode_release({token, generation});
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, release_to, release_tag,
             m_comm);
  }
  return e;
}

}  // namespace tine::mpi::detail
