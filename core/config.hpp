#ifndef TINE_CORE_CONFIG_HPP
#define TINE_CORE_CONFIG_HPP

/// \file config.hpp
/// Compiler checks and the few macros the rest of tine uses.

#if !defined(__cplusplus) || __cplusplus < 202002L
// clang-format off
#error "tine needs C++20: compile with -std=c++20 \
(with Bazel: build --cxxopt=-std=c++20 in your .bazelrc)"
// clang-format on
#endif

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

namespace tine::detail {

/// Misuse that cannot be reported by an exception (for example inside a destructor or on a path
/// where an exception would lose work) ends the program with a message naming the rule broken.
[[noreturn]] TINE_NOINLINE inline void fatal(const char* message) noexcept {
  std::fputs("tine: fatal: ", stderr);
  std::fputs(message, stderr);
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
