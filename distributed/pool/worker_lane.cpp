#include <tine/distributed/pool/worker_lane.hpp>

#include <tine/distributed/pool/frame_range.hpp>
#include <tine/distributed/pool/run_taken.hpp>

namespace tine::mpi::detail {

using tine::detail::frame;
using tine::detail::frame_kind;

bool worker_lane::offer(frame* parent, void* child, tine::deque<frame*>& continuations) {
  // One continuation at a time: while thieves have not taken the last one, keep the rest.
  if (m_slot.offered()) {
    return false;
  }
  if (continuations.empty()) {
    // The parent's continuation is the worker's only one.
    const std::optional<std::uint64_t> item = m_rank.item_for(parent, child);
    return item.has_value() && m_slot.offer(*item);
  }
  // The oldest continuation (a steal from our own deque: the rank's other workers may be
  // stealing from it too, and one may win).
  const steal_result<frame*> got = continuations.steal();
  if (got.status != steal_status::success) {
    return false;
  }
  frame* oldest = got.value;
  // Its item needs where its running child begins: that child is an ancestor of `parent` (or
  // `parent` itself). Every item of the deque was pushed by this worker since it last resumed a
  // stolen frame, so the walk stays among this worker's frames; bounded, because a very deep
  // chain would cost more than the offer is worth.
  constexpr int max_walk = 4096;
  frame* its_child = parent;
  for (int i = 0;
       i < max_walk && its_child->kind != frame_kind::root && its_child->parent != oldest; ++i) {
    its_child = its_child->parent;
  }
  std::optional<std::uint64_t> item;
  if (its_child->kind != frame_kind::root && its_child->parent == oldest) {
    item = m_rank.item_for(oldest, start_of(its_child));
  }
  if (!item.has_value() || !m_slot.offer(*item)) {
    m_kept.push_back(oldest);  // taken back in its turn (take_back)
  }
  return false;
}

frame* worker_lane::take_back() noexcept {
  if (const std::optional<std::uint64_t> item = m_slot.take_back()) {
    // relaxed: only counted (ask_for_offer); one writer, so a load and a store.
    m_taken_back.store(m_taken_back.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return item_frame(*item);
  }
  if (!m_kept.empty()) {
    frame* f = m_kept.back();
    m_kept.pop_back();
    return f;
  }
  return nullptr;
}

bool worker_lane::run_own() {
  frame* own = m_context.take_continuation(m_context);
  if (own == nullptr) {
    own = take_back();
  }
  if (own == nullptr) {
    return false;
  }
  run_taken(m_context, own);
  return true;
}

}  // namespace tine::mpi::detail
