#ifndef TINE_EXECUTION_AWAIT_SENDER_HPP
#define TINE_EXECUTION_AWAIT_SENDER_HPP

/// \file await_sender.hpp
/// A sender awaited inside a tine task: the task suspends (its worker goes on with other work)
/// and resumes on its own tine scheduler when the sender completes, whatever thread completed it.
///
/// ```
/// tine::task<long> g(io_scheduler io) {
///   std::string page = co_await stdexec::starts_on(io, read_page());
///   long a = 0;
///   co_await tine::fork(&a, parse, page);
///   co_await tine::join();
///   co_return a;
/// }
/// ```
///
/// - The sender must have at most one value completion: `set_value()` gives the co_await no value
///   (void), `set_value(x)` gives `x` (decayed), `set_value(x, y, ...)` a `std::tuple`. A sender
///   with several value completions does not compile, with a message.
/// - `set_error(e)` is thrown at the co_await: a `std::exception_ptr` rethrown as it is, a
///   `std::error_code` as `std::system_error`, anything else thrown as itself.
/// - `set_stopped()` throws `tine::cancelled` at the co_await, as a fork in a stopped scope.
/// - The receiver's environment answers `get_stop_token` with the awaiting task's
///   `tine::get_stop_token()`: a stop of the task's root or innermost stop scope reaches the
///   sender.
/// - As for a future: not between a fork and its join, and not on `tine::mpi_pool`
///   (std::logic_error). The operation state lives in the task's frame: nothing is allocated.
///
/// tine's own senders awaited in a task go through here too, which is rarely what is meant:
/// inside a task, fork and call are cheaper than `co_await tine::execution::as_sender(...)`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <stop_token>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include <stdexec/execution.hpp>

#include <tine/core/cancelled.hpp>
#include <tine/core/external_await.hpp>
#include <tine/core/request.hpp>
#include <tine/core/task.hpp>

namespace tine::execution::detail {

/// The environment an awaited sender is connected with: the awaiting task's stop token.
struct await_env {
  std::stop_token stop;
  std::stop_token query(stdexec::get_stop_token_t) const noexcept { return stop; }
};

template <typename... A>
using decayed_values = std::tuple<std::decay_t<A>...>;

/// The value completions of a sender, as at most one tuple of decayed values.
template <typename... Tuples>
struct one_value {
  static constexpr bool at_most_one = sizeof...(Tuples) <= 1;
  using type = std::tuple_element_t<0, std::tuple<Tuples..., std::tuple<>>>;
};

/// What the co_await gives for a tuple of values: nothing, the one value, or the tuple.
template <typename Tuple>
struct await_result {
  using type = Tuple;
};
template <>
struct await_result<std::tuple<>> {
  using type = void;
};
template <typename T>
struct await_result<std::tuple<T>> {
  using type = T;
};

template <typename S>
using sender_values = stdexec::value_types_of_t<S, await_env, decayed_values, one_value>;

/// A sender a task may await: not one of tine's own requests or tasks, which await_transform
/// handles itself.
template <typename S>
concept awaitable_sender =
    !tine::detail::request<S> && !tine::task_type<S> && stdexec::sender_in<S, await_env>;

/// The operation of a sender awaited in a task: the connected sender and its outcome.
template <typename S>
class sender_await_operation {
  static_assert(sender_values<S>::at_most_one,
                "co_await of a sender in a tine task: the sender has several value completions "
                "(set_value with different arguments), so the co_await would have no single "
                "type; make it send one (stdexec::into_variant gives one std::variant)");
  using values = typename sender_values<S>::type;
  using result_type = typename await_result<values>::type;
  struct stopped {};

  struct receiver {
    using receiver_concept = stdexec::receiver_t;
    sender_await_operation* op;

    template <typename... V>
    void set_value(V&&... v) && noexcept {
      try {
        op->m_outcome.template emplace<values>(std::forward<V>(v)...);
      } catch (...) {
        op->m_outcome.template emplace<std::exception_ptr>(std::current_exception());
      }
      op->m_done.resume();  // the last act: the task may run, and this operation end, at once
    }
    template <typename E>
    void set_error(E&& e) && noexcept {
      op->m_outcome.template emplace<std::exception_ptr>(as_exception(std::forward<E>(e)));
      op->m_done.resume();
    }
    void set_stopped() && noexcept {
      op->m_outcome.template emplace<stopped>();
      op->m_done.resume();
    }
    await_env get_env() const noexcept { return {op->m_stop}; }
  };

  template <typename E>
  static std::exception_ptr as_exception(E&& e) noexcept {
    if constexpr (std::is_same_v<std::decay_t<E>, std::exception_ptr>) {
      return std::forward<E>(e);
    } else if constexpr (std::is_same_v<std::decay_t<E>, std::error_code>) {
      return std::make_exception_ptr(std::system_error(e));
    } else {
      return std::make_exception_ptr(std::forward<E>(e));
    }
  }

 public:
  sender_await_operation(S&& s, std::stop_token stop)
      : m_stop(std::move(stop)), m_op(stdexec::connect(std::move(s), receiver{this})) {}
  sender_await_operation(sender_await_operation&&) = delete;

  void start(tine::resume_token done) noexcept {
    m_done = done;
    stdexec::start(m_op);
  }

  result_type result() {
    if (auto* e = std::get_if<std::exception_ptr>(&m_outcome)) {
      std::rethrow_exception(*e);
    }
    if (std::holds_alternative<stopped>(m_outcome)) {
      throw tine::cancelled();
    }
    if constexpr (!std::is_void_v<result_type>) {
      values& v = std::get<values>(m_outcome);
      if constexpr (std::tuple_size_v<values> == 1) {
        return std::move(std::get<0>(v));
      } else {
        return std::move(v);
      }
    }
  }

 private:
  std::stop_token m_stop;
  tine::resume_token m_done;
  std::variant<std::monostate, values, std::exception_ptr, stopped> m_outcome;
  stdexec::connect_result_t<S, receiver> m_op;
};

}  // namespace tine::execution::detail

/// Senders awaited in tine tasks (see the file comment).
template <tine::execution::detail::awaitable_sender S>
struct tine::await_adapter<S> {
  static tine::execution::detail::sender_await_operation<S> adapt(S&& s, std::stop_token stop) {
    return {std::move(s), std::move(stop)};
  }
};

#endif  // TINE_EXECUTION_AWAIT_SENDER_HPP
