#ifndef TINE_ANALYSIS_TICK_CLOCK_HPP
#define TINE_ANALYSIS_TICK_CLOCK_HPP

/// \file tick_clock.hpp
/// The analyzer's clock. A strand can be a few nanoseconds long and the analyzer reads the clock
/// at every fork, return and join, so the read must cost little: the processor's time-stamp
/// counter where it runs at a constant rate (x86-64 with an invariant TSC), else steady_clock.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define TINE_ANALYSIS_TSC 1
#endif

namespace tine::detail {

/// Whether ticks() reads the time-stamp counter (decided once per process).
bool ticks_are_tsc() noexcept;

/// The current time in ticks of an unspecified epoch.
inline std::uint64_t ticks() noexcept {
#if defined(TINE_ANALYSIS_TSC)
  if (TINE_LIKELY(ticks_are_tsc())) {
    return __rdtsc();
  }
#endif
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

/// Seconds per tick: measured against steady_clock once per process (a 20 ms wait, the first
/// time) when ticks are the time-stamp counter's, else 1e-9.
double seconds_per_tick() noexcept;

}  // namespace tine::detail

#endif  // TINE_ANALYSIS_TICK_CLOCK_HPP
