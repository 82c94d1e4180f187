#ifndef TINE_EXECUTION_DETAIL_ROOT_COMPLETION_HPP
#define TINE_EXECUTION_DETAIL_ROOT_COMPLETION_HPP

/// \file root_completion.hpp
/// The bridge from a spawned tine root to a P2300 receiver, shared by `as_sender` and `bulk`:
/// the receiver's stop token asks the root to stop, and the root's outcome completes the
/// receiver exactly once: a value with set_value, `tine::cancelled` (a stopped root) with
/// set_stopped, any other exception with set_error(std::exception_ptr).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include <stdexec/execution.hpp>

#include <tine/application/future.hpp>
#include <tine/core/cancelled.hpp>

namespace tine::execution::detail {

/// Watches the root of a future for `Receiver` (see the file comment). `OnValue` is called as
/// `on_value(receiver, value...)` on the completing thread, to complete the receiver with a
/// value; it must not throw. The object must stay put from `watch` until it has completed the
/// receiver: it is the root's continuation.
template <typename T, typename Receiver, typename OnValue>
class root_completion : tine::detail::future_waiter {
  using token_type = stdexec::stop_token_of_t<stdexec::env_of_t<Receiver>>;

  /// Passes the receiver's stop request on to the root.
  struct forward_stop {
    tine::detail::future_state_base* root;
    void operator()() const noexcept { root->request_stop(); }
  };
  using stop_link = stdexec::stop_callback_for_t<token_type, forward_stop>;

 public:
  root_completion(Receiver& r,
                  OnValue on_value) noexcept(std::is_nothrow_move_constructible_v<OnValue>)
      : future_waiter{&notify}, m_receiver(&r), m_on_value(std::move(on_value)) {}
  root_completion(root_completion&&) = delete;

  /// Completes the receiver with the outcome of the root `f` refers to (a future just spawned,
  /// with no continuation yet). Runs the completion here if the root has ended already.
  void watch(tine::future<T> f) noexcept {
    m_root = tine::detail::future_access::release(f);
    if constexpr (!stdexec::unstoppable_token<token_type>) {
      // Runs forward_stop at once if the receiver's stop was requested already.
      m_stop.emplace(stdexec::get_stop_token(stdexec::get_env(*m_receiver)), forward_stop{m_root});
    }
    bool registered = false;
    try {
      registered = m_root->set_waiter(this);
    } catch (...) {
      // Unreachable: a future fresh from spawn has no continuation. Kept total, not assumed.
      m_stop.reset();
      stdexec::set_error(std::move(*m_receiver), std::current_exception());
      return;
    }
    if (!registered) {
      notify(this);
    }
  }

 private:
  static void notify(tine::detail::future_waiter* w) noexcept {
    auto* self = static_cast<root_completion*>(w);
    // The root is done: no stop request may reach it any more. (Waits for a request being
    // passed on right now on another thread; the root's state is alive until taken below.)
    self->m_stop.reset();
    Receiver& r = *self->m_receiver;
    auto* root = std::exchange(self->m_root, nullptr);
    if constexpr (std::is_void_v<T>) {
      bool ok = false;
      std::exception_ptr error;
      bool stopped = false;
      try {
        tine::detail::take_outcome(root);
        ok = true;
      } catch (const tine::cancelled&) {
        stopped = true;
      } catch (...) {
        error = std::current_exception();
      }
      finish(self, r, ok, stopped, error);
    } else {
      std::optional<T> value;
      std::exception_ptr error;
      bool stopped = false;
      try {
        value.emplace(tine::detail::take_outcome(root));
      } catch (const tine::cancelled&) {
        stopped = true;
      } catch (...) {
        error = std::current_exception();
      }
      if (value) {
        self->m_on_value(r, std::move(*value));
        return;
      }
      finish(self, r, false, stopped, error);
    }
  }

  static void finish(root_completion* self, Receiver& r, bool ok, bool stopped,
                     const std::exception_ptr& error) noexcept {
    if constexpr (std::is_void_v<T>) {
      if (ok) {
        self->m_on_value(r);
        return;
      }
    }
    if (stopped) {
      stdexec::set_stopped(std::move(r));
    } else {
      stdexec::set_error(std::move(r), error);
    }
  }

  Receiver* m_receiver;
  OnValue m_on_value;
  tine::detail::future_state<T>* m_root = nullptr;
  struct no_link {
    void reset() noexcept {}
  };
  std::conditional_t<stdexec::unstoppable_token<token_type>, no_link, std::optional<stop_link>>
      m_stop;
};

}  // namespace tine::execution::detail

#endif  // TINE_EXECUTION_DETAIL_ROOT_COMPLETION_HPP
