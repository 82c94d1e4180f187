#ifndef TINE_CORE_CONFIG_HPP
#define TINE_CORE_CONFIG_HPP

/// \file config.hpp
/// Compiler checks and the few macros the rest of tine uses.
///
/// Every tine header includes this one first, so that a build without C++20 stops with the
/// message below before a standard header (`<coroutine>`, `<concepts>`) or tine's own C++20 code
/// fails in ways that do not say why.

#if !defined(__cplusplus) || __cplusplus < 202002L
// clang-format off
#error "tine needs C++20: compile with -std=c++20 \
(with Bazel: build --cxxopt=-std=c++20 in your .bazelrc)"
// clang-format on
// A missing header is a fatal error for GCC and Clang: compilation stops here, after the message
// above, instead of going on to hundreds of errors from the C++20 code that follows.
#include <tine: compilation stopped here (C++20 is needed, see the error above)>
#endif

#include <atomic>
#include <cstdio>
#include <cstdlib>

#if defined(__GNUC__) || defined(__clang__)
#define TINE_NOINLINE [[gnu::noinline]]
#define TINE_ALWAYS_INLINE [[gnu::always_inline]] inline
#define TINE_LIKELY(x) __builtin_expect(!!(x), 1)
#define TINE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TINE_NOINLINE
#define TINE_ALWAYS_INLINE inline
#define TINE_LIKELY(x) (x)
#define TINE_UNLIKELY(x) (x)
#endif

/// The checked build: the runtime verifies what it cheaply can and stops with a message naming the
/// mistake (a request that was never awaited, a task that returns between a fork and its join, a
/// stack free out of order). On by default when NDEBUG is not defined; define TINE_CHECKED to 0
/// or 1 to choose. See docs/build.md.
#ifndef TINE_CHECKED
#ifdef NDEBUG
#define TINE_CHECKED 0
#else
#define TINE_CHECKED 1
#endif
#endif

/// The attribute of a function that reads (or writes) a thread_local variable from code that may
/// run inside a coroutine; every such access in tine goes through one.
///
/// Clang lays out a coroutine's frame after it has optimised the coroutine's body, and it treats
/// the address of a thread_local as the same value throughout a function (the address comes from
/// `llvm.threadlocal.address`, which is `memory(none)`, so it is merged and hoisted like any pure
/// computation). An address computed before a suspension point can then be kept in the frame and
/// used after the coroutine resumed on another thread: the access goes to the first thread's
/// variable (LLVM issues 47179 and 63022; clang-16 does this). On Clang the access is therefore a
/// call to a function that is never inlined: the address is computed inside it, on the thread
/// making the call, and the result of a call made before a suspension cannot stand in for one made
/// after it, because the call reads memory and LLVM treats every suspension point
/// (`llvm.coro.suspend`) as writing any memory. Such a function must read or write the variable:
/// one that only returns its address is `memory(none)` itself, and its calls may be merged too.
/// GCC fixes a coroutine's frame layout before optimising (only what the source keeps across a
/// suspension is in the frame), so it cannot keep an address across one: the access stays inline.
#if defined(__clang__)
#define TINE_TLS_ACCESSOR [[gnu::noinline]] inline
#else
#define TINE_TLS_ACCESSOR TINE_ALWAYS_INLINE
#endif

namespace tine::detail {

/// Set by the first thread that reports a fatal error.
inline std::atomic<bool> fatal_reported{false};

/// Misuse that cannot be reported by an exception (for example inside a destructor or on a path
/// where an exception would lose work) ends the program with a message naming the rule broken.
/// The message is printed once: when several workers make the same mistake at the same time, the
/// first one prints and aborts, and the others wait for the abort to end the process. `detail`
/// (an exception's what(), say) is printed after the message when given.
[[noreturn]] TINE_NOINLINE inline void fatal(const char* message,
                                             const char* detail = nullptr) noexcept {
  // acq_rel: one thread wins; the others never print, whatever the order of their arrivals.
  if (fatal_reported.exchange(true, std::memory_order_acq_rel)) {
    for (;;) {
      fatal_reported.wait(true, std::memory_order_acquire);  // never changes back: sleeps
    }
  }
  std::fputs("tine: fatal: ", stderr);
  std::fputs(message, stderr);
  if (detail != nullptr) {
    std::fputs(": ", stderr);
    std::fputs(detail, stderr);
  }
  std::fputc('\n', stderr);
  std::abort();
}

}  // namespace tine::detail

/// TINE_CHECK: a rule users must follow, verified in checked builds only.
/// TINE_ASSERT: one of tine's own invariants, verified in checked builds only.
#if TINE_CHECKED
#define TINE_CHECK(cond, msg) ((cond) ? (void)0 : ::tine::detail::fatal(msg))
#define TINE_ASSERT(cond, msg) \
  ((cond) ? (void)0 : ::tine::detail::fatal("internal assertion failed: " msg))
#else
#define TINE_CHECK(cond, msg) ((void)0)
#define TINE_ASSERT(cond, msg) ((void)0)
#endif

#endif  // TINE_CORE_CONFIG_HPP
