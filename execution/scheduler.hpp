#ifndef TINE_EXECUTION_SCHEDULER_HPP
#define TINE_EXECUTION_SCHEDULER_HPP

/// \file scheduler.hpp
/// `tine::execution::scheduler`: any tine scheduler as a scheduler of the standard's async model
/// (P2300, `std::execution`; stdexec is its reference implementation).
///
/// ```
/// tine::lazy_pool<> pool;
/// auto sch = tine::execution::scheduler(pool);
/// auto s = stdexec::starts_on(sch, stdexec::just(35) | stdexec::then(fib_serial));
/// auto [r] = stdexec::sync_wait(std::move(s)).value();
/// ```
///
/// - A copyable handle (a pointer and a function, as `tine::scheduler_ref`); two are equal when
///   they name the same tine scheduler. It must not outlive that scheduler.
/// - `schedule(sch)` completes on one of the scheduler's workers: the operation state is the
///   submission, queued with the tine scheduler's own `schedule` (nothing allocated by tine). It
///   never runs the receiver on the calling thread and never blocks; it completes with
///   `set_stopped` if the receiver's stop token was stopped by the time a worker takes it, and
///   with `set_error(std::exception_ptr)` if the tine scheduler refused the submission (a user
///   scheduler's `schedule` that throws).
/// - Its environment names itself the completion scheduler, forward progress `parallel`, and a
///   domain whose `bulk` runs tine's parallel loop (bulk.hpp).
/// - A tine scheduler's destructor waits for the submissions queued on it: an operation started
///   before the destructor began completes.
/// - `tine::mpi_pool` is refused: its roots are collective (every rank starts them together).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <type_traits>
#include <utility>

#include <stdexec/execution.hpp>

#include <tine/core/concepts.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/execution/domain.hpp>

namespace tine {

template <typename Policy>
class mpi_pool;

namespace execution {

class scheduler;

namespace detail {

template <typename S>
inline constexpr bool is_mpi_pool = false;
template <typename P>
inline constexpr bool is_mpi_pool<tine::mpi_pool<P>> = true;

/// The operation of `schedule(sch)`: it is the submission the tine scheduler queues.
template <typename Receiver>
class schedule_operation : submit_node {
 public:
  using operation_state_concept = stdexec::operation_state_t;

  schedule_operation(scheduler_ref target, Receiver r) noexcept(
      std::is_nothrow_move_constructible_v<Receiver>)
      : m_target(target), m_receiver(std::move(r)) {
    run = &arrive;
  }
  schedule_operation(schedule_operation&&) = delete;

  void start() & noexcept {
    if (stop_requested()) {
      stdexec::set_stopped(std::move(m_receiver));
      return;
    }
    try {
      m_target.schedule(this);  // a worker runs arrive(); this object stays put until then
    } catch (...) {
      stdexec::set_error(std::move(m_receiver), std::current_exception());
    }
  }

 private:
  bool stop_requested() const noexcept {
    return stdexec::get_stop_token(stdexec::get_env(m_receiver)).stop_requested();
  }

  static void arrive(submit_node* node) {
    auto* self = static_cast<schedule_operation*>(node);
    if (self->stop_requested()) {
      stdexec::set_stopped(std::move(self->m_receiver));
    } else {
      stdexec::set_value(std::move(self->m_receiver));
    }
  }

  scheduler_ref m_target;
  Receiver m_receiver;
};

}  // namespace detail

class scheduler {
 public:
  /// The P2300 scheduler of tine scheduler `s`, which must outlive it.
  template <tine::scheduler S>
  requires(!std::same_as<std::remove_cv_t<S>, scheduler>) explicit scheduler(S& s) noexcept
      : m_target(s) {
    static_assert(!detail::is_mpi_pool<std::remove_cv_t<S>>,
                  "tine::execution::scheduler: tine::mpi_pool cannot be a P2300 scheduler: its "
                  "roots are collective (every rank starts them with tine::sync_wait), while a "
                  "sender is started by one thread of one process");
  }

  /// What `schedule(sch)` returns.
  class sender {
   public:
    using sender_concept = stdexec::sender_t;
    using completion_signatures =
        stdexec::completion_signatures<stdexec::set_value_t(),
                                       stdexec::set_error_t(std::exception_ptr),
                                       stdexec::set_stopped_t()>;

    template <typename Receiver>
    detail::schedule_operation<std::decay_t<Receiver>> connect(Receiver&& r) const {
      return {m_target, std::forward<Receiver>(r)};
    }

    /// The sender's attributes: its completion scheduler and domain.
    struct attributes {
      scheduler_ref target;
      template <typename Tag>
      scheduler query(stdexec::get_completion_scheduler_t<Tag>) const noexcept {
        return scheduler(target);
      }
      template <typename Tag>
      detail::domain query(stdexec::get_completion_domain_t<Tag>) const noexcept;
    };
    attributes get_env() const noexcept { return {m_target}; }

   private:
    friend class scheduler;
    explicit sender(scheduler_ref t) noexcept : m_target(t) {}
    scheduler_ref m_target;
  };

  sender schedule() const noexcept { return sender(m_target); }

  stdexec::forward_progress_guarantee query(
      stdexec::get_forward_progress_guarantee_t) const noexcept {
    return stdexec::forward_progress_guarantee::parallel;
  }
  detail::domain query(stdexec::get_domain_t) const noexcept;
  template <typename Tag>
  detail::domain query(stdexec::get_completion_domain_t<Tag>) const noexcept;
  template <typename Tag>
  scheduler query(stdexec::get_completion_scheduler_t<Tag>) const noexcept {
    return *this;
  }

  /// The tine scheduler it names, as a `tine::scheduler_ref` (to spawn or sync_wait on it).
  scheduler_ref tine_scheduler() const noexcept { return m_target; }

  friend bool operator==(const scheduler& a, const scheduler& b) noexcept {
    return a.m_target == b.m_target;
  }

 private:
  explicit scheduler(scheduler_ref r) noexcept : m_target(r) {}

  scheduler_ref m_target;
};

inline detail::domain scheduler::query(stdexec::get_domain_t) const noexcept { return {}; }
template <typename Tag>
detail::domain scheduler::query(stdexec::get_completion_domain_t<Tag>) const noexcept {
  return {};
}
template <typename Tag>
detail::domain scheduler::sender::attributes::query(
    stdexec::get_completion_domain_t<Tag>) const noexcept {
  return {};
}

static_assert(stdexec::scheduler<scheduler>);

}  // namespace execution
}  // namespace tine

#endif  // TINE_EXECUTION_SCHEDULER_HPP
