#ifndef TINE_EXECUTION_BULK_HPP
#define TINE_EXECUTION_BULK_HPP

/// \file bulk.hpp
/// `bulk` on a tine scheduler runs as tine's parallel loop: one root that halves `[0, shape)`
/// recursively, forking the left half, down to pieces of the size tine's algorithms use
/// (algorithms/grain.hpp), so idle workers steal the larger remaining halves: not one sender
/// or submission per index.
///
/// ```
/// auto b = stdexec::schedule(sch) | stdexec::bulk(stdexec::par, n, [&](std::size_t i) { ... });
/// stdexec::sync_wait(std::move(b));
/// ```
///
/// The scheduler's domain (domain.hpp) turns `bulk`, `bulk_chunked` and `bulk_unchunked`
/// whose predecessor completes on a tine scheduler into the sender below. With `par` or
/// `par_unseq` the pieces run in parallel; with `seq` or `unseq` the whole range runs as one
/// piece on one worker, in order. `bulk_chunked`'s function is called with each piece's
/// `[begin, end)`; `bulk` and `bulk_unchunked`'s once per index.
///
/// A function that returns a `tine::task` (tine's own extension: other schedulers would drop the
/// task unrun) has each call run as a child task, so a body may fork and join.
///
/// Completion: the predecessor's values, passed by reference to every call, then sent on with
/// `set_value`; the first exception a call throws with `set_error(std::exception_ptr)` once
/// every piece already started has finished (pieces not started are skipped, as in
/// `tine::for_each`); the receiver's stop token stops the loop (pieces not started are
/// skipped) and the operation completes with `set_stopped`. The predecessor's error and
/// stopped completions pass through. The loop's root is allocated, as a spawned root (an
/// allocation failure completes with `set_error`).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <exception>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include <exec/completion_signatures.hpp>
#include <stdexec/execution.hpp>

#include <tine/algorithms/extension.hpp>
#include <tine/algorithms/grain.hpp>
#include <tine/application/spawn.hpp>
#include <tine/core/fork_call.hpp>
#include <tine/core/join.hpp>
#include <tine/core/scheduler_ref.hpp>
#include <tine/core/stop.hpp>
#include <tine/core/task.hpp>
#include <tine/execution/detail/root_completion.hpp>

namespace tine::execution::detail {

template <typename... A>
using decayed_tuple = std::tuple<std::decay_t<A>...>;
template <typename... T>
using values_or_none = std::variant<std::monostate, T...>;

template <bool Chunked, typename Shape, typename Fun, typename Child, typename Receiver>
class bulk_operation {
  using values_type =
      stdexec::value_types_of_t<Child, stdexec::env_of_t<Receiver>, decayed_tuple, values_or_none>;

  /// Receives the predecessor's completion.
  struct child_receiver {
    using receiver_concept = stdexec::receiver_t;
    bulk_operation* op;

    template <typename... A>
    void set_value(A&&... a) && noexcept {
      op->arrive(std::forward<A>(a)...);
    }
    template <typename E>
    void set_error(E&& e) && noexcept {
      stdexec::set_error(std::move(op->m_receiver), std::forward<E>(e));
    }
    void set_stopped() && noexcept { stdexec::set_stopped(std::move(op->m_receiver)); }
    stdexec::env_of_t<Receiver> get_env() const noexcept {
      return stdexec::get_env(op->m_receiver);
    }
  };

  /// Whether the function returns a tine task for the values in `Tuple`: each call then runs
  /// as a child task, which may fork.
  template <typename Tuple>
  static constexpr bool returns_task = []<typename... V>(std::tuple<V...>*) {
    if constexpr (Chunked) {
      return tine::detail::task_body<Fun&, Shape, Shape, V&...>;
    } else {
      return tine::detail::task_body<Fun&, Shape, V&...>;
    }
  }(static_cast<Tuple*>(nullptr));

  /// One piece of the loop: the function on `[lo, hi)` with the predecessor's values.
  template <typename Tuple>
  struct piece {
    bulk_operation* op;
    Tuple* values;
    void operator()(std::size_t lo, std::size_t hi) const
      requires(!returns_task<Tuple>)
    {
      if (op->skip_after_stop()) {
        return;
      }
      std::apply(
          [&](auto&... v) {
            if constexpr (Chunked) {
              op->m_fun(static_cast<Shape>(lo), static_cast<Shape>(hi), v...);
            } else {
              for (std::size_t i = lo; i < hi; ++i) {
                op->m_fun(static_cast<Shape>(i), v...);
              }
            }
          },
          *values);
    }
    /// A function that returns a task: each call a child task, in turn (the pieces are what run
    /// in parallel, and the tasks' own forks).
    tine::task<void> operator()(std::size_t lo, std::size_t hi) const
      requires returns_task<Tuple>
    {
      if (op->skip_after_stop()) {
        co_return;
      }
      // The call requests refer to their arguments until awaited: every argument is an lvalue
      // that outlives the co_await (a local here, or the values in the operation state).
      if constexpr (Chunked) {
        const Shape begin = static_cast<Shape>(lo);
        const Shape end = static_cast<Shape>(hi);
        co_await std::apply([&](auto&... v) { return tine::call(op->m_fun, begin, end, v...); },
                            *values);
      } else {
        for (std::size_t i = lo; i < hi; ++i) {
          const Shape index = static_cast<Shape>(i);
          co_await std::apply([&](auto&... v) { return tine::call(op->m_fun, index, v...); },
                              *values);
        }
      }
    }
  };

  template <typename Tuple>
  static tine::task<void> loop(bulk_operation* op) {
    const auto n = static_cast<std::size_t>(op->m_shape);
    const piece<Tuple> body{op, &std::get<Tuple>(op->m_values)};
    const std::size_t grain =
        op->m_parallel ? tine::detail::leaf_size(n, {}, tine::detail::workers_here()) : n;
    co_await tine::call(tine::detail::split_for<piece<Tuple>>, &body, std::size_t{0}, n, grain);
    co_await tine::join();
  }

  /// Completes the receiver with the predecessor's values, once the loop has ended.
  struct send_values {
    bulk_operation* op;
    void operator()(Receiver& r) const noexcept {
      // relaxed: the pieces' stores happen before the root's end, which happens before this.
      if (op->m_skipped.load(std::memory_order_relaxed)) {
        stdexec::set_stopped(std::move(r));  // some indices were not visited
        return;
      }
      std::visit(
          [&](auto& t) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(t)>, std::monostate>) {
              std::apply([&](auto&... v) { stdexec::set_value(std::move(r), std::move(v)...); }, t);
            }
          },
          op->m_values);
    }
  };

 public:
  using operation_state_concept = stdexec::operation_state_t;

  template <typename C, typename R>
  bulk_operation(scheduler_ref target, C&& child, Shape shape, Fun fun, bool parallel, R&& r)
      : m_target(target),
        m_shape(shape),
        m_fun(std::move(fun)),
        m_parallel(parallel),
        m_receiver(std::forward<R>(r)),
        m_completion(m_receiver, send_values{this}),
        m_child(stdexec::connect(std::forward<C>(child), child_receiver{this})) {}
  bulk_operation(bulk_operation&&) = delete;

  void start() & noexcept { stdexec::start(m_child); }

 private:
  /// Whether a piece starting now is skipped: the receiver's stop was requested. The root's
  /// own stop link is made only once spawn has returned, so a short loop may otherwise run to
  /// its end despite an early stop; each piece looks itself, and stops the root for the forks
  /// not yet started.
  bool skip_after_stop() noexcept {
    if constexpr (stdexec::unstoppable_token<
                      stdexec::stop_token_of_t<stdexec::env_of_t<Receiver>>>) {
      return false;
    } else {
      if (!stdexec::get_stop_token(stdexec::get_env(m_receiver)).stop_requested()) {
        return false;
      }
      m_skipped.store(true, std::memory_order_relaxed);  // read after the root's end
      tine::request_stop();
      return true;
    }
  }

  template <typename... A>
  void arrive(A&&... a) noexcept {
    using tuple = decayed_tuple<A...>;
    std::exception_ptr error;
    try {
      m_values.template emplace<tuple>(std::forward<A>(a)...);
      if (!(m_shape > Shape{})) {  // an empty (or negative) shape: nothing to call
        send_values{this}(m_receiver);
        return;
      }
      if (stdexec::get_stop_token(stdexec::get_env(m_receiver)).stop_requested()) {
        stdexec::set_stopped(std::move(m_receiver));
        return;
      }
      m_completion.watch(tine::spawn(m_target, &loop<tuple>, this));
      return;
    } catch (...) {
      error = std::current_exception();
    }
    stdexec::set_error(std::move(m_receiver), std::move(error));
  }

  scheduler_ref m_target;
  Shape m_shape;
  Fun m_fun;
  bool m_parallel;
  Receiver m_receiver;
  values_type m_values;
  std::atomic<bool> m_skipped{false};  ///< a piece was skipped after a stop
  root_completion<void, Receiver, send_values> m_completion;
  stdexec::connect_result_t<Child, child_receiver> m_child;
};

/// The sender the domain makes of a `bulk` on a tine scheduler.
template <bool Chunked, typename Shape, typename Fun, typename Child>
class bulk_sender {
 public:
  using sender_concept = stdexec::sender_t;

  template <typename C>
  bulk_sender(scheduler_ref target, C&& child, Shape shape, Fun fun, bool parallel)
      : m_target(target),
        m_child(std::forward<C>(child)),
        m_shape(shape),
        m_fun(std::move(fun)),
        m_parallel(parallel) {}

  template <typename Self, typename... Env>
  static consteval auto get_completion_signatures() {
    using child =
        std::conditional_t<std::is_const_v<std::remove_reference_t<Self>>, const Child&, Child>;
    return exec::concat_completion_signatures(
        stdexec::get_completion_signatures<child, Env...>(),
        stdexec::completion_signatures<stdexec::set_error_t(std::exception_ptr),
                                       stdexec::set_stopped_t()>());
  }

  template <typename Receiver>
  bulk_operation<Chunked, Shape, Fun, Child, std::decay_t<Receiver>> connect(Receiver&& r) && {
    return {m_target,         std::move(m_child), m_shape,
            std::move(m_fun), m_parallel,         std::forward<Receiver>(r)};
  }

  stdexec::env_of_t<const Child&> get_env() const noexcept { return stdexec::get_env(m_child); }

 private:
  scheduler_ref m_target;
  Child m_child;
  Shape m_shape;
  Fun m_fun;
  bool m_parallel;
};

}  // namespace tine::execution::detail

#endif  // TINE_EXECUTION_BULK_HPP
