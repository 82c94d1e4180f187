#ifndef TINE_EXECUTION_SCHEDULER_HPP
#define TINE_EXECUTION_SCHEDULER_HPP

/// \file scheduler.hpp
/// `tine::execution::scheduler<S>`: tine scheduler `S` as a scheduler of the standard's async
/// model (P2300, `std::execution`; stdexec is its reference implementation).
///
/// ```
/// tine::lazy_pool<> pool;
/// auto sch = tine::execution::scheduler(pool);   // tine::execution::scheduler<tine::lazy_pool<>>
/// auto s = stdexec::starts_on(sch, stdexec::just(35) | stdexec::then(fib_serial));
/// auto [r] = stdexec::sync_wait(std::move(s)).value();
/// ```
///
/// - A copyable handle (a pointer to the tine scheduler); two are equal when they name the same
///   tine scheduler. The tine scheduler must outlive it and every operation started on it.
/// - `schedule(sch)` completes on one of the scheduler's workers: the operation state is the
///   submission, queued with the tine scheduler's own `schedule` (nothing allocated by tine). It
///   never runs the receiver on the calling thread and never blocks. It completes with
///   `set_stopped()` if the receiver's stop token was stopped by the time a worker takes it (a
///   completion it declares only for a receiver whose token can be stopped), and with
///   `set_error(std::exception_ptr)` if the tine scheduler refused the submission (declared only
///   for a scheduler whose `schedule` may throw: a user scheduler's; tine's own do not).
/// - Its environment names itself the completion scheduler, forward progress `parallel`, and a
///   domain whose `bulk` runs tine's parallel loop (bulk.hpp).
/// - A tine scheduler's destructor runs the submissions queued on it before it stops: an
///   operation started before the destructor began completes.
/// - `tine::mpi_pool` is refused: its roots are collective (every rank starts them together).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <exception>
#include <type_traits>
#include <utility>

#include <stdexec/execution.hpp>

#include <tine/core/concepts.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/execution/domain.hpp>

namespace tine::execution {

namespace detail {

/// A pool whose roots are collective says so with `using tine_collective_pool = void;`
/// (tine::mpi_pool; the same marker as the algorithms' collective_pool).
template <typename S>
inline constexpr bool is_collective_pool = requires { typename S::tine_collective_pool; };

/// Whether `s.schedule(node)` cannot throw: then `schedule(sch)` declares no error completion.
template <typename S>
inline constexpr bool schedules_nothrow =
    noexcept(std::declval<S&>().schedule(static_cast<submit_node*>(nullptr)));

/// How the P2300 scheduler holds the tine scheduler: a pointer, or a `scheduler_ref` by value
/// (it is itself a handle, often a temporary).
template <typename S>
struct target_of {
  using type = S*;
  static type make(S& s) noexcept { return &s; }
  static S& get(type t) noexcept { return *t; }
};
template <>
struct target_of<scheduler_ref> {
  using type = scheduler_ref;
  static type make(scheduler_ref s) noexcept { return s; }
  static scheduler_ref& get(type& t) noexcept { return t; }
};

/// The operation of `schedule(sch)`: it is the submission the tine scheduler queues.
template <typename S, typename Receiver>
class schedule_operation : submit_node {
  using token_type = stdexec::stop_token_of_t<stdexec::env_of_t<Receiver>>;

 public:
  using operation_state_concept = stdexec::operation_state_t;

  schedule_operation(typename target_of<S>::type target,
                     Receiver r) noexcept(std::is_nothrow_move_constructible_v<Receiver>)
      : m_target(target), m_receiver(std::move(r)) {
    run = &arrive;
    // A schedule from one of the pool's own workers is new work beside that worker's task (a
    // when_all's other branch, say), not a task coming back: to the queue every worker takes
    // from, where an idle worker is woken for it, not kept behind the running task.
    starts_root = true;
  }
  schedule_operation(schedule_operation&&) = delete;

  void start() & noexcept {
    if (stop_requested()) {
      stdexec::set_stopped(std::move(m_receiver));
      return;
    }
    if constexpr (schedules_nothrow<S>) {
      target_of<S>::get(m_target).schedule(this);  // a worker runs arrive(); this stays put
    } else {
      std::exception_ptr error;
      try {
        target_of<S>::get(m_target).schedule(this);
        return;
      } catch (...) {
        error = std::current_exception();
      }
      stdexec::set_error(std::move(m_receiver), std::move(error));
    }
  }

 private:
  bool stop_requested() const noexcept {
    if constexpr (stdexec::unstoppable_token<token_type>) {
      return false;
    } else {
      return stdexec::get_stop_token(stdexec::get_env(m_receiver)).stop_requested();
    }
  }

  static void arrive(submit_node* node) {
    auto* self = static_cast<schedule_operation*>(node);
    if (self->stop_requested()) {
      stdexec::set_stopped(std::move(self->m_receiver));
    } else {
      stdexec::set_value(std::move(self->m_receiver));
    }
  }

  typename target_of<S>::type m_target;
  Receiver m_receiver;
};

}  // namespace detail

/// Tine scheduler `S` as a P2300 scheduler (see the file comment). `S` is checked in the body,
/// not by a constraint: a refused `S` then gets its sentence, not a list of deduction failures.
template <typename S>
class scheduler {
  static_assert(!detail::is_collective_pool<std::remove_cv_t<S>>,
                "tine::execution::scheduler: tine::mpi_pool cannot be a P2300 scheduler: its "
                "roots are collective (every rank starts them with tine::sync_wait), while a "
                "sender is started by one thread of one process");
  static_assert(detail::is_collective_pool<std::remove_cv_t<S>> || tine::scheduler<S>,
                "tine::execution::scheduler<S>: S must be a tine scheduler (the tine::scheduler "
                "concept: a schedule(tine::submit_node*) member)");
  using target_type = typename detail::target_of<S>::type;

 public:
  /// The P2300 scheduler of tine scheduler `s`, which must outlive it.
  explicit scheduler(S& s) noexcept
    requires(!std::same_as<S, scheduler_ref>)
      : m_target(detail::target_of<S>::make(s)) {}

  /// The P2300 scheduler of the tine scheduler `s` refers to (the reference is copied).
  explicit scheduler(scheduler_ref s) noexcept
    requires std::same_as<S, scheduler_ref>
      : m_target(s) {}

  /// What `schedule(sch)` returns.
  class sender {
   public:
    using sender_concept = stdexec::sender_t;

    template <typename Self, typename Env>
    static consteval auto get_completion_signatures() noexcept {
      constexpr bool stoppable = !stdexec::unstoppable_token<stdexec::stop_token_of_t<Env>>;
      if constexpr (detail::schedules_nothrow<S> && !stoppable) {
        return stdexec::completion_signatures<stdexec::set_value_t()>();
      } else if constexpr (detail::schedules_nothrow<S>) {
        return stdexec::completion_signatures<stdexec::set_value_t(), stdexec::set_stopped_t()>();
      } else if constexpr (!stoppable) {
        return stdexec::completion_signatures<stdexec::set_value_t(),
                                              stdexec::set_error_t(std::exception_ptr)>();
      } else {
        return stdexec::completion_signatures<stdexec::set_value_t(),
                                              stdexec::set_error_t(std::exception_ptr),
                                              stdexec::set_stopped_t()>();
      }
    }

    template <typename Receiver>
    detail::schedule_operation<S, std::decay_t<Receiver>> connect(Receiver&& r) const {
      return {m_target, std::forward<Receiver>(r)};
    }

    /// The sender's attributes: its completion scheduler and domain.
    struct attributes {
      target_type target;
      template <typename Tag>
      scheduler query(stdexec::get_completion_scheduler_t<Tag>) const noexcept {
        return scheduler(from_target{}, target);
      }
      template <typename Tag>
      detail::domain query(stdexec::get_completion_domain_t<Tag>) const noexcept {
        return {};
      }
    };
    attributes get_env() const noexcept { return {m_target}; }

   private:
    friend class scheduler;
    explicit sender(target_type t) noexcept : m_target(t) {}
    target_type m_target;
  };

  sender schedule() const noexcept { return sender(m_target); }

  stdexec::forward_progress_guarantee query(
      stdexec::get_forward_progress_guarantee_t) const noexcept {
    return stdexec::forward_progress_guarantee::parallel;
  }
  detail::domain query(stdexec::get_domain_t) const noexcept { return {}; }
  template <typename Tag>
  detail::domain query(stdexec::get_completion_domain_t<Tag>) const noexcept {
    return {};
  }
  template <typename Tag>
  scheduler query(stdexec::get_completion_scheduler_t<Tag>) const noexcept {
    return *this;
  }

  /// The tine scheduler it names.
  S& tine_scheduler() const noexcept { return detail::target_of<S>::get(m_target); }

  friend bool operator==(const scheduler& a, const scheduler& b) noexcept {
    return scheduler_ref(a.tine_scheduler()) == scheduler_ref(b.tine_scheduler());
  }

 private:
  struct from_target {};
  scheduler(from_target, target_type t) noexcept : m_target(t) {}

  mutable target_type m_target;
};

template <typename S>
scheduler(S&) -> scheduler<S>;
scheduler(scheduler_ref) -> scheduler<scheduler_ref>;

}  // namespace tine::execution

#endif  // TINE_EXECUTION_SCHEDULER_HPP
