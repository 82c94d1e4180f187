/// \file rank_worker_joins.cpp
/// The rank_worker's home-joins leg: every arrival at the join of a frame whose continuation was
/// stolen, counted at the frame's home (arrive, count_at_home), sent there from elsewhere
/// (send_arrival) and received by the progress thread or an idle worker (receive), and a frame
/// whose count completed written and continued (apply, run_ready).
///
/// Locking, shared with rank_worker_steal.cpp and rank_worker.cpp: m_mutex guards the join
/// records, the ready frames, the frames held from other ranks (which a completed count drops)
/// and m_generation; it is held only to update them, never across MPI or a frame's resumption.
/// m_exceptions_mutex guards the exception store (run_ready collects its freed entries), but its
/// release(), which has its own lock and is called under m_mutex (receive).

#include <tine/distributed/pool/rank_worker.hpp>

#include <cstring>
#include <new>
#include <string>

#include <tine/distributed/foundation/exception_transport.hpp>
#include <tine/distributed/pool/messages.hpp>
#include <tine/distributed/pool/pool_hooks.hpp>

namespace tine::mpi::detail {

using tine::detail::frame;

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

}  // namespace tine::mpi::detail
