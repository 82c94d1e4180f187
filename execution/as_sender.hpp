#ifndef TINE_EXECUTION_AS_SENDER_HPP
#define TINE_EXECUTION_AS_SENDER_HPP

/// \file as_sender.hpp
/// `tine::execution::as_sender(sched, fn, args...)`: a tine task as a P2300 sender. Fork-join
/// inside, senders outside:
///
/// ```
/// auto s = tine::execution::as_sender(pool, fib, 30);    // a sender of long
/// auto [r] = stdexec::sync_wait(std::move(s)).value();
/// ```
///
/// - Starting the operation spawns `fn(args...)` as a root on `sched` (as `tine::spawn`: the
///   root's state is allocated, the scheduler's destructor waits for the root); nothing runs
///   before `start`. The arguments are stored in the sender, decayed, and moved into the root.
/// - The root's value completes the receiver with `set_value(value)` (`set_value()` for a
///   `task<void>`), its exception with `set_error(std::exception_ptr)`, and a stopped root (one
///   that ends with `tine::cancelled`) with `set_stopped()`. The completion runs on the thread
///   that ends the root (a worker of `sched`), or inside `start` when the root ended already.
/// - The receiver's stop token stops the root: `tine::stop_requested()` turns true in its tasks,
///   their unstarted forks never start. A stop requested before `start` completes the operation
///   with `set_stopped()` and spawns nothing. A spawn that fails (`std::bad_alloc`) completes it
///   with `set_error`.
/// - `tine::mpi_pool` is refused at compile time: its roots are collective.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include <stdexec/execution.hpp>

#include <tine/application/future.hpp>
#include <tine/application/spawn.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/execution/detail/root_completion.hpp>
#include <tine/execution/scheduler.hpp>

namespace tine::execution {
namespace detail {

template <typename X>
struct future_value;
template <typename T>
struct future_value<tine::future<T>> {
  using type = T;
};

/// What `fn(args...)` gives as a root: the T of its `tine::task<T>`.
template <typename F, typename... Args>
using task_value_t = typename future_value<decltype(tine::spawn(
    std::declval<scheduler_ref&>(), std::declval<F>(), std::declval<Args>()...))>::type;

/// `set_value_t(T)`, or `set_value_t()` for void.
template <typename T>
struct value_signature_of {
  using type = stdexec::set_value_t(T);
};
template <>
struct value_signature_of<void> {
  using type = stdexec::set_value_t();
};

/// Completes the receiver with the root's value.
struct complete_with_value {
  template <typename Receiver, typename... V>
  void operator()(Receiver& r, V&&... v) const noexcept {
    stdexec::set_value(std::move(r), std::forward<V>(v)...);
  }
};

template <typename Receiver, typename F, typename... Args>
class task_operation {
  using T = task_value_t<F, Args...>;

 public:
  using operation_state_concept = stdexec::operation_state_t;

  template <typename R, typename G, typename Tuple>
  task_operation(scheduler_ref target, R&& r, G&& fn, Tuple&& args)
      : m_target(target),
        m_receiver(std::forward<R>(r)),
        m_fn(std::forward<G>(fn)),
        m_args(std::forward<Tuple>(args)),
        m_completion(m_receiver, complete_with_value{}) {}
  task_operation(task_operation&&) = delete;

  void start() & noexcept {
    if (stdexec::get_stop_token(stdexec::get_env(m_receiver)).stop_requested()) {
      stdexec::set_stopped(std::move(m_receiver));
      return;
    }
    std::exception_ptr error;
    try {
      auto f = std::apply(
          [this](Args&... a) { return tine::spawn(m_target, std::move(m_fn), std::move(a)...); },
          m_args);
      m_completion.watch(std::move(f));  // noexcept; may complete the receiver here
      return;
    } catch (...) {
      error = std::current_exception();
    }
    stdexec::set_error(std::move(m_receiver), std::move(error));
  }

 private:
  scheduler_ref m_target;
  Receiver m_receiver;
  F m_fn;
  std::tuple<Args...> m_args;
  root_completion<T, Receiver, complete_with_value> m_completion;
};

/// The sender `as_sender` returns.
template <typename F, typename... Args>
class task_sender {
  using T = task_value_t<F, Args...>;
  using value_signature = typename value_signature_of<T>::type;

 public:
  using sender_concept = stdexec::sender_t;
  using completion_signatures =
      stdexec::completion_signatures<value_signature, stdexec::set_error_t(std::exception_ptr),
                                     stdexec::set_stopped_t()>;

  template <typename G, typename... A>
  task_sender(scheduler_ref target, G&& fn, A&&... args)
      : m_target(target), m_fn(std::forward<G>(fn)), m_args(std::forward<A>(args)...) {}

  template <typename Receiver>
  task_operation<std::decay_t<Receiver>, F, Args...> connect(Receiver&& r) && {
    return {m_target, std::forward<Receiver>(r), std::move(m_fn), std::move(m_args)};
  }
  template <typename Receiver>
    requires(std::copy_constructible<F> && (std::copy_constructible<Args> && ...))
  task_operation<std::decay_t<Receiver>, F, Args...> connect(Receiver&& r) const& {
    return {m_target, std::forward<Receiver>(r), m_fn, m_args};
  }

 private:
  scheduler_ref m_target;
  F m_fn;
  std::tuple<Args...> m_args;
};

/// What as_sender's first argument may be: checked in the body, not by a constraint, so that a
/// refused scheduler gets its sentence.
template <typename S>
void check_task_scheduler() {
  static_assert(!is_collective_pool<std::remove_cv_t<S>>,
                "tine::execution::as_sender: a task on tine::mpi_pool cannot be a sender: its "
                "roots are collective (every rank starts them with tine::sync_wait), while a "
                "sender is started by one thread of one process");
  static_assert(is_collective_pool<std::remove_cv_t<S>> || tine::scheduler<S>,
                "tine::execution::as_sender(sched, fn, args...): sched must be a tine scheduler "
                "(the tine::scheduler concept) or a tine::execution::scheduler");
}

}  // namespace detail

/// A sender of `fn(args...)`'s value, run as a root on tine scheduler `sched` when started (see
/// the file comment). `sched` must outlive the operation.
template <typename S, typename F, typename... Args>
  requires(!detail::is_tine_p2300_scheduler<std::remove_cv_t<S>>)
detail::task_sender<std::decay_t<F>, std::decay_t<Args>...> as_sender(S& sched, F&& fn,
                                                                      Args&&... args) {
  detail::check_task_scheduler<S>();
  if constexpr (tine::scheduler<S>) {
    return {scheduler_ref(sched), std::forward<F>(fn), std::forward<Args>(args)...};
  } else {
    std::terminate();  // not instantiated in a program that compiles: the check above failed
  }
}

/// The same on the tine scheduler a `tine::execution::scheduler` names.
template <typename S, typename F, typename... Args>
detail::task_sender<std::decay_t<F>, std::decay_t<Args>...> as_sender(const scheduler<S>& sch,
                                                                      F&& fn, Args&&... args) {
  return {scheduler_ref(sch.tine_scheduler()), std::forward<F>(fn), std::forward<Args>(args)...};
}

}  // namespace tine::execution

#endif  // TINE_EXECUTION_AS_SENDER_HPP
