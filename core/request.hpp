#ifndef TINE_CORE_REQUEST_HPP
#define TINE_CORE_REQUEST_HPP

/// \file request.hpp
/// What a task may co_await. `tine::fork`, `tine::call`, `tine::join`, `tine::resume_on`,
/// `tine::stack_alloc` and `tine::dprng::current()` return *requests*, and `tine::future` and
/// `tine::mpi::checkout` are ones: objects that do nothing until the task awaits them, when
/// `bind(frame&)` turns them into the awaitable that does the work with the awaiting task's frame
/// in hand.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <coroutine>
#include <type_traits>
#include <utility>

namespace tine::detail {

struct frame;

/// Something a task may co_await: tine's request objects expose `bind(frame&)`.
template <typename R>
concept request = requires(std::remove_cvref_t<R>& r, frame& f) {
  typename std::remove_cvref_t<R>::tine_request;
  std::move(r).bind(f);
};

/// A member of every request. In checked builds it stops the program when the request is
/// destroyed without having been awaited (a forgotten `co_await` runs nothing and, for fork and
/// call, never writes the result); otherwise it is empty and costs nothing.
class await_check {
 public:
#if TINE_CHECKED
  await_check() noexcept = default;
  await_check(await_check&& other) noexcept : m_awaited(std::exchange(other.m_awaited, true)) {}
  await_check& operator=(await_check&&) = delete;
  ~await_check() {
    if (!m_awaited) {
      fatal(
          "a tine::fork, tine::call or tine::join request was created but never co_awaited; "
          "write co_await tine::fork(...) (without co_await nothing runs and no result is "
          "written)");
    }
  }
  void awaited() noexcept { m_awaited = true; }

 private:
  bool m_awaited = false;
#else
  void awaited() noexcept {}
#endif
};

/// What fork or call returns when a static_assert has already rejected its arguments: a request
/// that does nothing, so that the `co_await` adds no error of its own to that message.
struct rejected_request {
  using tine_request = void;
  std::suspend_never bind(frame&) && noexcept { return {}; }
};

}  // namespace tine::detail

#endif  // TINE_CORE_REQUEST_HPP
