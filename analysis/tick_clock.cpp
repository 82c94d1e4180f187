#include <tine/analysis/tick_clock.hpp>

#include <thread>

#if defined(TINE_ANALYSIS_TSC)
#include <cpuid.h>
#endif

namespace tine::detail {

namespace {

bool invariant_tsc() noexcept {
#if defined(TINE_ANALYSIS_TSC)
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  // CPUID leaf 0x80000007, EDX bit 8: the counter runs at a constant rate in every state.
  if (__get_cpuid_max(0x80000000U, nullptr) < 0x80000007U) {
    return false;
  }
  __cpuid(0x80000007U, a, b, c, d);
  return (d & (1U << 8)) != 0;
#else
  return false;
#endif
}

double calibrate() noexcept {
  if (!ticks_are_tsc()) {
    return 1e-9;
  }
  using clock = std::chrono::steady_clock;
  const clock::time_point t0 = clock::now();
  const std::uint64_t k0 = ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const clock::time_point t1 = clock::now();
  const std::uint64_t k1 = ticks();
  const double seconds = std::chrono::duration<double>(t1 - t0).count();
  return k1 > k0 ? seconds / static_cast<double>(k1 - k0) : 1e-9;
}

}  // namespace

bool ticks_are_tsc() noexcept {
  static const bool tsc = invariant_tsc();
  return tsc;
}

double seconds_per_tick() noexcept {
  static const double s = calibrate();
  return s;
}

}  // namespace tine::detail
