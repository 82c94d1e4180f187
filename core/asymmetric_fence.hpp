#ifndef TINE_CORE_ASYMMETRIC_FENCE_HPP
#define TINE_CORE_ASYMMETRIC_FENCE_HPP

/// \file asymmetric_fence.hpp
/// A store-load fence split in two unequal halves, for a protocol whose two sides run at very
/// different rates (the deque: the owner's pop runs on every join, a thief's steal rarely).
///
/// - `light_fence()`, on the frequent side, is only a compiler barrier: it keeps the compiler from
///   moving memory accesses across it, and costs no instruction.
/// - `heavy_fence()`, on the rare side, is Linux's `membarrier(2)` with
///   `MEMBARRIER_CMD_PRIVATE_EXPEDITED`: the kernel makes every other running thread of the
///   process execute a full memory barrier (an inter-processor interrupt; a thread that is not
///   running passes one at its next context switch) before the call returns.
///
/// Together they order like a pair of `std::atomic_thread_fence(seq_cst)`: a light fence runs
/// either before the moment its thread was interrupted, and then everything before it is visible
/// to what follows the heavy fence; or after that moment, and then what follows it sees everything
/// that preceded the heavy fence. (This is the asymmetric fence of the C++ proposal P1202, and
/// what membarrier was made for.) The heavy side costs a system call and an interrupt of every
/// other running thread of the process: microseconds, not nanoseconds.
///
/// `asymmetric_fences_supported()` says whether the heavy fence works here: the kernel must have
/// membarrier with the private expedited command (Linux 4.14 and later) and the process must be
/// allowed to call it (a seccomp filter may refuse it). Code that cannot use the pair falls back to
/// full fences on both sides. ThreadSanitizer understands neither half, so builds under it report
/// no support.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>

#if defined(__linux__) && __has_include(<linux/membarrier.h>) && __has_include(<sys/syscall.h>)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#define TINE_HAS_MEMBARRIER 1
#endif

#if defined(__SANITIZE_THREAD__)
#define TINE_FENCE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TINE_FENCE_TSAN 1
#endif
#endif

namespace tine::detail {

/// The frequent half: a compiler barrier (see the file comment).
TINE_ALWAYS_INLINE void light_fence() noexcept {
  // seq_cst signal fence: no compiler reordering of memory accesses across this point, and no
  // instruction; the heavy fence on the other side supplies the hardware barrier.
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

#if defined(TINE_HAS_MEMBARRIER) && !defined(TINE_FENCE_TSAN)

/// Registers the process for expedited membarriers, once; true if the heavy fence can be used.
inline bool asymmetric_fences_supported() noexcept {
  static const bool supported = [] {
    const long commands = ::syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (commands < 0 || (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
      return false;
    }
    return ::syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  }();
  return supported;
}

/// The rare half: a memory barrier on every running thread of the process, this one included.
/// Call only after asymmetric_fences_supported() returned true.
TINE_NOINLINE inline void heavy_fence() noexcept {
  // The system call is a full barrier on this thread, and the kernel runs one on every other
  // running thread of the process before returning. It cannot fail once registration succeeded
  // (the command is valid and the process is registered); if it ever did, the only safe thing
  // left is to stop rather than run the protocol unfenced.
  if (::syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
    fatal("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after a successful registration");
  }
  // seq_cst fence: in the C++ model the heavy side is then at least a seq_cst fence on this
  // thread, whatever one makes of the system call.
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

#else

inline bool asymmetric_fences_supported() noexcept { return false; }

[[noreturn]] inline void heavy_fence() noexcept {
  fatal("heavy_fence() called where asymmetric fences are not supported");
}

#endif

}  // namespace tine::detail

#undef TINE_FENCE_TSAN

#endif  // TINE_CORE_ASYMMETRIC_FENCE_HPP
