#ifndef TINE_SCHEDULERS_SPIN_BACKOFF_HPP
#define TINE_SCHEDULERS_SPIN_BACKOFF_HPP

/// \file spin_backoff.hpp
/// How an idle worker waits between two looks for work: a few exponentially longer bursts of
/// `pause`, then `sched_yield` on every round. Pausing keeps latency at a few hundred cycles
/// when work is about to appear; yielding lets other runnable threads (other processes, or
/// oversubscribed workers sharing the core) have the core when it does not.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>
#include <thread>

namespace tine::detail {

/// One cpu "spin-wait hint": lowers power and frees pipeline resources for the sibling
/// hyper-thread while spinning.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

class spin_backoff {
 public:
  /// Rounds spent pausing before every round yields.
  static constexpr std::uint32_t pause_rounds = 6;

  /// Work was found: start over with short waits.
  void reset() noexcept { m_rounds = 0; }

  /// Nothing was found this round: wait a little (longer each time, up to a yield).
  void idle() noexcept {
    if (m_rounds < pause_rounds) {
      for (std::uint32_t i = 0; i < (2U << m_rounds); ++i) {
        cpu_relax();
      }
    } else {
      std::this_thread::yield();
    }
    ++m_rounds;
  }

  /// Rounds without work since the last reset.
  std::uint32_t rounds() const noexcept { return m_rounds; }

 private:
  std::uint32_t m_rounds = 0;
};

}  // namespace tine::detail

#endif  // TINE_SCHEDULERS_SPIN_BACKOFF_HPP
