#ifndef TINE_SCHEDULERS_LIVENESS_HPP
#define TINE_SCHEDULERS_LIVENESS_HPP

/// \file liveness.hpp
/// `detail::liveness`: lets a scheduler notice that it is used after its destructor ran.
///
/// A root submitted to a scheduler whose workers have stopped would wait forever, and its caller
/// with it, without a word. So each of tine's schedulers keeps a word that says "alive" from its
/// construction and "destroyed" once its destructor has stopped the workers, and checks it where
/// work comes in (`schedule`, a worker's queue): a scheduler used after its destruction ends the
/// program with a message, in every build.
///
/// What this can see: a use of the scheduler's own memory while that memory still holds what
/// the destructor left there, as for a scheduler with static storage used by another static's
/// destructor, or one destroyed in place in a buffer or on a stack frame that is still live.
/// What it cannot see: memory that was freed and reused for something else (a scheduler on the
/// heap after `delete`, a stack frame that has since been reused); the behaviour is then
/// undefined, as for any object used after its lifetime (AddressSanitizer reports the heap
/// case). The check is one load and a predicted branch per submission.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstdint>

namespace tine::detail {

class liveness {
 public:
  liveness() noexcept = default;
  liveness(const liveness&) = delete;
  liveness& operator=(const liveness&) = delete;

  /// The owner's destructor has stopped its workers: from now on every check fails. An atomic
  /// store, so that the compiler keeps it although the object's lifetime is about to end (a
  /// plain store in a destructor may be removed as dead).
  void end() noexcept { m_word.store(destroyed, std::memory_order_relaxed); }

  /// Whether the owner's destructor has run. relaxed: the check detects a use that comes after
  /// the destruction in the program's order; a use racing the destruction is a data race on the
  /// owner, which no flag can make safe.
  bool ended() const noexcept { return m_word.load(std::memory_order_relaxed) != alive; }

  /// Ends the program with `message` if the owner was destroyed.
  void check(const char* message) const noexcept {
    if (TINE_UNLIKELY(ended())) {
      fatal(message);
    }
  }

 private:
  // Words unlikely to be found in memory by chance ("tine:on!" and "tine:off").
  static constexpr std::uint64_t alive = 0x74696e653a6f6e21ULL;
  static constexpr std::uint64_t destroyed = 0x74696e653a6f6666ULL;

  std::atomic<std::uint64_t> m_word{alive};
};

}  // namespace tine::detail

#endif  // TINE_SCHEDULERS_LIVENESS_HPP
