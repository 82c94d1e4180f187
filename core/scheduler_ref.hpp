#ifndef TINE_CORE_SCHEDULER_REF_HPP
#define TINE_CORE_SCHEDULER_REF_HPP

/// \file scheduler_ref.hpp
/// `tine::scheduler_ref`: any scheduler as a small copyable value (a pointer and a function),
/// itself a `tine::scheduler`. `tine::current_scheduler()` returns the one a task runs on, so a
/// task can spawn work beside itself, and a task awaiting a future is resumed where it ran.
///
/// A scheduler whose destructor must wait for work it does not see in its queues (roots spawned
/// on it, tasks of it suspended on a future) counts that work in an atomic it exposes as
/// `pending_work()`; tine increments it for each such piece and decrements it when the piece is
/// back in the scheduler's hands or done. tine's pools do.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <concepts>
#include <cstddef>
#include <type_traits>

#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>

namespace tine {
namespace detail {

/// A scheduler that counts work it must wait for (see the file comment).
template <typename S>
concept counts_pending = requires(S& s) {
  { s.pending_work() } -> std::same_as<std::atomic<std::size_t>&>;
};

}  // namespace detail

class scheduler_ref {
 public:
  /// Refers to `s`, which must outlive every use of the reference.
  template <scheduler S>
    requires(!std::same_as<std::remove_cv_t<S>, scheduler_ref>)
  scheduler_ref(S& s) noexcept
      : m_self(&s),
        m_schedule([](void* self, submit_node* node) { static_cast<S*>(self)->schedule(node); }) {
    if constexpr (detail::counts_pending<S>) {
      m_pending = &s.pending_work();
    }
  }

  /// As the referred scheduler's schedule (it may throw only if it did not take the node).
  void schedule(submit_node* node) const { m_schedule(m_self, node); }

  /// The referred scheduler's count of pending work, or null when it keeps none.
  std::atomic<std::size_t>* pending_work() const noexcept { return m_pending; }

  /// Whether both refer to the same scheduler object.
  friend bool operator==(const scheduler_ref& a, const scheduler_ref& b) noexcept {
    return a.m_self == b.m_self;
  }

 private:
  void* m_self;
  void (*m_schedule)(void*, submit_node*);
  std::atomic<std::size_t>* m_pending = nullptr;
};

static_assert(scheduler<scheduler_ref>);

}  // namespace tine

#endif  // TINE_CORE_SCHEDULER_REF_HPP
