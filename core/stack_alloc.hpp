#ifndef TINE_CORE_STACK_ALLOC_HPP
#define TINE_CORE_STACK_ALLOC_HPP

/// \file stack_alloc.hpp
/// The stack allocation API (libfork paper, section III-C): a task may allocate an array on the
/// segmented stack it lives on, a portable `alloca` that cannot overflow. Typical use is a buffer
/// for the partial results of a fork-join scope:
///
/// ```
/// tine::stack_array<long> parts = co_await tine::stack_alloc<long>(n);
/// for (std::size_t i = 0; i < n; ++i) co_await tine::fork(&parts[i], work, i);
/// co_await tine::join();
/// ```
///
/// Rules, each checked:
/// - allocate outside a fork-join scope (before the first fork or after a join): inside a scope
///   the task may be running on a thief's stack (`std::logic_error`);
/// - arrays are freed in the reverse order of their allocation, inside the task that made them;
///   C++ scopes give this order naturally (breaking it ends the program with a message).
///
/// An array destroyed between a fork and its join (an exception leaves the scope, or the array's
/// block ends before the join) keeps its memory until the children are joined, so children that
/// still write into it write into live memory; the memory is freed at the join (or at the implicit
/// join at the task's end). Its elements are destroyed at once, as C++ requires: with an element
/// type that has a destructor, join before leaving the block.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <tine/core/frame.hpp>
#include <tine/core/stacklet.hpp>
#include <tine/core/worker_runtime.hpp>

namespace tine {
namespace detail {
template <typename T>
struct stack_alloc_request;
}  // namespace detail

/// `n` default-initialised objects of type T on the current worker's stack, freed (in FILO order)
/// when the array is destroyed. Move-constructible, not assignable.
template <typename T>
class stack_array {
 public:
  stack_array(stack_array&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)),
        m_size(std::exchange(other.m_size, 0)),
        m_owner(other.m_owner) {}
  stack_array(const stack_array&) = delete;
  stack_array& operator=(const stack_array&) = delete;
  stack_array& operator=(stack_array&&) = delete;

  ~stack_array() {
    if (m_data == nullptr) {
      return;
    }
    std::destroy_n(m_data, m_size);
    auto* p = reinterpret_cast<std::byte*>(m_data);
    if (m_owner->in_scope && m_owner->steals != 0) {
      // Stolen inside a scope: children may still use the array, and this worker may not run on
      // the array's stack. The join frees it (arrays die in reverse order: keep the lowest).
      if (m_owner->release_at_join == nullptr || p < m_owner->release_at_join) {
        m_owner->release_at_join = p;
      }
      return;
    }
    detail::stacklet*& top = detail::runtime().top();
    if (p + detail::round_to_stack_alignment(m_size * sizeof(T)) != top->sp) {
      detail::fatal(
          "tine::stack_array freed out of order: stack allocations must be freed in the reverse "
          "order of allocation");
    }
    detail::stack_pop(top, p);
  }

  T* data() noexcept { return m_data; }
  const T* data() const noexcept { return m_data; }
  std::size_t size() const noexcept { return m_size; }
  bool empty() const noexcept { return m_size == 0; }
  T& operator[](std::size_t i) noexcept { return m_data[i]; }
  const T& operator[](std::size_t i) const noexcept { return m_data[i]; }
  T* begin() noexcept { return m_data; }
  T* end() noexcept { return m_data + m_size; }
  const T* begin() const noexcept { return m_data; }
  const T* end() const noexcept { return m_data + m_size; }
  std::span<T> span() noexcept { return {m_data, m_size}; }
  operator std::span<T>() noexcept { return span(); }

 private:
  template <typename>
  friend struct detail::stack_alloc_request;

  stack_array(T* data, std::size_t size, detail::frame* owner) noexcept
      : m_data(data), m_size(size), m_owner(owner) {}

  T* m_data;
  std::size_t m_size;
  detail::frame* m_owner;
};

namespace detail {

template <typename T>
struct stack_alloc_request {
  using tine_request = void;
  std::size_t count;
  frame* owner = nullptr;

  stack_alloc_request bind(frame& f) && noexcept {
    owner = &f;
    return *this;
  }

  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}

  stack_array<T> await_resume() const {
    if (owner->in_scope) {
      throw std::logic_error(
          "tine::stack_alloc: cannot allocate between a fork and its join (the task may be running "
          "on a thief's stack); allocate before the first fork or after the join");
    }
    if (count == 0) {
      return stack_array<T>(nullptr, 0, owner);
    }
    if (count > (static_cast<std::size_t>(-1) / 2) / sizeof(T)) {
      throw std::length_error("tine::stack_alloc: requested size is too large");
    }
    stacklet*& top = runtime().top();
    void* raw = stack_push(top, count * sizeof(T));
    T* data = static_cast<T*>(raw);
    try {
      std::uninitialized_default_construct_n(data, count);
    } catch (...) {
      stack_pop(top, raw);
      throw;
    }
    return stack_array<T>(data, count, owner);
  }
};

}  // namespace detail

/// Allocates `count` default-initialised T on the current task's stack: `co_await
/// tine::stack_alloc<T>(count)` yields a `tine::stack_array<T>`.
template <typename T>
[[nodiscard(
    "tine::stack_alloc allocates nothing unless co_awaited: write "
    "auto a = co_await tine::stack_alloc<T>(n);")]] detail::stack_alloc_request<T>
stack_alloc(std::size_t count) noexcept {
  static_assert(alignof(T) <= detail::stack_alignment,
                "tine::stack_alloc<T>: T may be aligned to at most 64 bytes (stack allocations "
                "start on 64-byte boundaries)");
  static_assert(!std::is_reference_v<T> && !std::is_const_v<T>,
                "tine::stack_alloc<T>: T must be a non-const object type");
  return {count};
}

}  // namespace tine

#endif  // TINE_CORE_STACK_ALLOC_HPP
