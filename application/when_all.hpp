#ifndef TINE_APPLICATION_WHEN_ALL_HPP
#define TINE_APPLICATION_WHEN_ALL_HPP

/// \file when_all.hpp
/// `tine::when_all(futures...)`: one future for several, ready when all of them are. Its value
/// holds theirs in order (`std::tuple` of them, `std::monostate` for a `future<void>`; a
/// `std::vector` for the vector form); if some failed, it ends with the exception of the first of
/// them in argument order, once all are done. It takes the futures over: each one's continuation
/// is this one (so they cannot be awaited or given a callback besides), and `request_stop()` on
/// the result stops them all. A future that holds no outcome, or already has a continuation (an
/// `on_complete` callback), is refused with std::logic_error before anything is taken: the
/// futures given are then dropped as the caller's own would be (their work is stopped and waited
/// for, or on a worker let go).
///
/// ```
/// tine::future<std::tuple<long, long>> both = tine::when_all(tine::spawn(a, fib, 30),
///                                                            tine::spawn(b, fib, 31));
/// auto [x, y] = both.get();
/// ```

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <tine/application/future.hpp>
#include <tine/application/future_state.hpp>

namespace tine {
namespace detail {

template <typename T>
using when_all_value = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

/// The combined state: counts the inputs still pending; the last to complete gathers the
/// outcomes and completes it.
template <typename Value, typename Inputs>
class when_all_state final : public future_state<Value> {
 public:
  struct input_waiter : future_waiter {
    when_all_state* owner = nullptr;
  };

  /// Without its inputs: the caller hands them over (m_inputs) once nothing can fail, so that a
  /// failed allocation here leaves the futures as they were.
  explicit when_all_state(std::size_t count)
      : future_state<Value>(&destroy, nullptr), m_remaining(count), m_waiters(count) {
    for (auto& w : m_waiters) {
      w.notify = &input_done;
      w.owner = this;
    }
    this->on_stop = [](future_state_base* self) noexcept {
      static_cast<when_all_state*>(self)->for_each_input(
          [](future_state_base* in) { in->request_stop(); });
    };
  }

  ~when_all_state() {
    for_each_input([](future_state_base* in) { in->release(); });
  }

  template <typename F>
  void for_each_input(F&& f) {
    if constexpr (requires { m_inputs.begin(); }) {
      for (auto* in : m_inputs) {
        f(in);
      }
    } else {
      std::apply([&f](auto*... in) { (f(in), ...); }, m_inputs);
    }
  }

  /// Registers every input's continuation; call once the state is owned by its future. Cannot
  /// throw: the inputs were checked to have no continuation (check_inputs).
  void start() noexcept {
    std::size_t i = 0;
    for_each_input([&](future_state_base* in) {
      input_waiter* w = &m_waiters[i++];
      if (!in->set_waiter(w)) {
        w->notify(w);  // already complete
      }
    });
  }

  Inputs m_inputs;

  std::function<void(when_all_state*)> gather;  // sets the value or exception from the inputs

 private:
  static void destroy(future_state_base* s) noexcept { delete static_cast<when_all_state*>(s); }

  static void input_done(future_waiter* w) noexcept {
    when_all_state* self = static_cast<input_waiter*>(w)->owner;
    // acq_rel: the last one sees every input's outcome.
    if (self->m_remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      try {
        self->gather(self);
      } catch (...) {
        self->exception = std::current_exception();
      }
      self->complete();
    }
  }

  std::atomic<std::size_t> m_remaining;
  std::vector<input_waiter> m_waiters;
};

/// Refuses what when_all cannot take, before it takes anything.
template <typename T>
void check_input(const future<T>& f, const future_state_base* state) {
  if (!f.valid()) {
    throw std::logic_error(
        "tine::when_all: a future holds no outcome (moved from, taken or "
        "detached)");
  }
  if (state->has_continuation()) {
    throw std::logic_error(
        "tine::when_all: a future already has a continuation (an on_complete callback); a "
        "future's outcome goes to one place");
  }
}

}  // namespace detail

/// One future for `futures...` (see the file comment).
template <typename... T>
[[nodiscard]] future<std::tuple<detail::when_all_value<T>...>> when_all(future<T>... futures) {
  using Value = std::tuple<detail::when_all_value<T>...>;
  using Inputs = std::tuple<detail::future_state<T>*...>;
  (detail::check_input(futures, detail::future_access::peek(futures)), ...);
  auto* state = new detail::when_all_state<Value, Inputs>(sizeof...(T));
  state->m_inputs = Inputs(detail::future_access::release(futures)...);
  state->gather = [](detail::when_all_state<Value, Inputs>* s) {
    std::apply(
        [s](auto*... in) {
          std::exception_ptr first;
          ((first = first ? std::move(first) : std::exchange(in->exception, nullptr)), ...);
          if (first) {
            s->exception = first;
          } else {
            const auto value_of = [](auto* input) {
              using V = std::remove_reference_t<decltype(*input)>;
              if constexpr (std::is_base_of_v<detail::future_value<void>, V>) {
                return std::monostate{};
              } else {
                return std::move(input->value);
              }
            };
            s->value = Value(value_of(in)...);
          }
        },
        s->m_inputs);
  };
  // The inputs' references go when the combined state goes.
  future<Value> result = detail::future_access::make<Value>(state);
  state->start();
  return result;
}

/// One future for a vector of futures of the same type: `future<std::vector<T>>`, or
/// `future<void>` for void ones.
template <typename T>
[[nodiscard]] auto when_all(std::vector<future<T>> futures) {
  using Value = std::conditional_t<std::is_void_v<T>, void, std::vector<T>>;
  using Inputs = std::vector<detail::future_state<T>*>;
  Inputs inputs;
  inputs.reserve(futures.size());
  for (auto& f : futures) {
    detail::check_input(f, detail::future_access::peek(f));
  }
  const std::size_t n = futures.size();
  auto* state = new detail::when_all_state<Value, Inputs>(n);
  for (auto& f : futures) {
    inputs.push_back(detail::future_access::release(f));  // reserved: cannot fail
  }
  state->m_inputs = std::move(inputs);
  state->gather = [](detail::when_all_state<Value, Inputs>* s) {
    for (auto* in : s->m_inputs) {
      if (in->exception) {
        s->exception = std::exchange(in->exception, nullptr);
        return;
      }
    }
    if constexpr (!std::is_void_v<T>) {
      s->value.reserve(s->m_inputs.size());
      for (auto* in : s->m_inputs) {
        s->value.push_back(std::move(in->value));
      }
    }
  };
  future<Value> result = detail::future_access::make<Value>(state);
  if (n == 0) {
    state->complete();
  } else {
    state->start();
  }
  return result;
}

}  // namespace tine

#endif  // TINE_APPLICATION_WHEN_ALL_HPP
