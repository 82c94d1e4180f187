#ifndef TINE_ALGORITHMS_DETAIL_COROUTINE_PARAM_HPP
#define TINE_ALGORITHMS_DETAIL_COROUTINE_PARAM_HPP

/// \file coroutine_param.hpp
/// `param<T>`: the type of an algorithm coroutine's by-value parameter that holds a caller's type
/// (an iterator, a function object, a value).
///
/// Why: Clang (seen with Clang 16) miscompiles a coroutine whose by-value parameter is a trivially
/// copyable class that is 16-byte aligned and passed in memory, such as
/// `std::counted_iterator` over `std::views::iota(0L)` (its count is an `__int128`). The
/// optimiser reads the caller's argument copy directly instead of the parameter's own copy, and
/// when the coroutine is split that argument is saved in the frame at the alignment LLVM gives
/// its type (8), not the 16 that the code reading it assumes: a 16-byte aligned load (`movaps`)
/// from an address 8 bytes off a 16-byte boundary, and a crash. `param<T>` is then a wrapper
/// that is not trivially copyable, so it is passed by address and copied into a frame slot of
/// its own, with its own alignment. With other compilers, and for every other type, it is `T`.
/// `arg(p)` reads the value either way.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <type_traits>
#include <utility>

namespace tine::detail {

template <typename T>
class pinned_param {
 public:
  // Implicit, so that a call passes a T where a param<T> is declared.
  pinned_param(T value) noexcept(std::is_nothrow_move_constructible_v<T>)  // NOLINT
      : m_value(std::move(value)) {}
  // User-provided copy and move: that is what makes the wrapper travel by address.
  pinned_param(const pinned_param& other) noexcept(std::is_nothrow_copy_constructible_v<T>)
      : m_value(other.m_value) {}
  pinned_param(pinned_param&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : m_value(std::move(other.m_value)) {}
  pinned_param& operator=(const pinned_param&) = delete;

  T& value() noexcept { return m_value; }

 private:
  T m_value;
};

template <typename T>
inline constexpr bool pin_coroutine_param =
#if defined(__clang__)
    alignof(T) > alignof(void*) && std::is_trivially_copyable_v<T>;
#else
    false;
#endif

template <typename T>
using param = std::conditional_t<pin_coroutine_param<T>, pinned_param<T>, T>;

template <typename T>
T& arg(T& value) noexcept {
  return value;
}
template <typename T>
T& arg(pinned_param<T>& p) noexcept {
  return p.value();
}

}  // namespace tine::detail

#endif  // TINE_ALGORITHMS_DETAIL_COROUTINE_PARAM_HPP
