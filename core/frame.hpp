#ifndef TINE_CORE_FRAME_HPP
#define TINE_CORE_FRAME_HPP

/// \file frame.hpp
/// The header every task's coroutine promise carries: who to resume next, where the task's stack
/// is, and Nowa's wait-free split join counter (Nowa paper, section IV).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <type_traits>

#include <tine/core/stacklet.hpp>

namespace tine::detail {

struct root_sink;

/// How a worker whose frames may move to another process keeps the exceptions it stores in them
/// (the distributed pool's): `encode` turns an exception into a token that fits the frame and
/// means something on every process (the pool: an entry of the rank that stored it, whose
/// description any rank can read), and `decode` turns a token back into an exception, once. Installed per thread with
/// `set_exception_codec`; without one, frames hold the `std::exception_ptr` itself.
struct exception_codec {
  std::uintptr_t (*encode)(void* self, std::exception_ptr e) noexcept;
  std::exception_ptr (*decode)(void* self, std::uintptr_t token) noexcept;
  void* self;
};

/// The calling thread's codec (null: none). Read through an accessor: frames store exceptions
/// inside tasks, which may move between threads (see TINE_TLS_ACCESSOR).
inline thread_local const exception_codec* tls_exception_codec = nullptr;

TINE_TLS_ACCESSOR const exception_codec* read_tls_exception_codec() noexcept {
  return tls_exception_codec;
}

/// Makes `codec` (null: none) the calling thread's; between two pieces of work, with no exception
/// stored in any frame of the worker.
inline void set_exception_codec(const exception_codec* codec) noexcept {
  tls_exception_codec = codec;
}

/// How a task was started, which decides what its final awaitable does.
enum class frame_kind : std::uint8_t {
  root,  ///< started by sync_wait: report to a root_sink
  call,  ///< started by tine::call: the parent waits, resume it directly
  fork,  ///< started by tine::fork: the parent's continuation may have been stolen
};

struct frame {
  /// Nowa's I_max: the join counter starts here, so it cannot reach zero before the explicit join
  /// subtracts (I_max - steals).
  static constexpr std::uint32_t max_joins = std::numeric_limits<std::uint32_t>::max();

  union {
    frame* parent;    ///< kind call/fork: the task that started this one.
    root_sink* root;  ///< kind root: where the result is reported.
  };
  /// Where co_return writes the task's value (a `T*` of the task's `task<T>`); null when the value
  /// is discarded or the task returns void.
  void* result = nullptr;
  /// Top stacklet of the stack this frame lives on, recorded whenever the task may give up its
  /// worker (the first fork of a scope, resume_on): the worker that resumes it adopts that stack.
  stacklet* stack = nullptr;
  /// Start of the lowest stack_array destroyed inside the current fork-join scope while the task
  /// was stolen: children may still write into it, so it is freed at the join (null: none).
  std::byte* release_at_join = nullptr;
  std::atomic<std::uint32_t> joins{max_joins};  ///< Nowa's N'_tau = I_max - joined strands.
  std::uint32_t steals = 0;  ///< Times the continuation was stolen (Nowa's alpha).
  /// Set once an exception is stored in `m_exception` (the first one wins).
  std::atomic<bool> has_exception{false};
  frame_kind kind = frame_kind::call;
  bool in_scope = false;  ///< Forked since the last join.
  bool at_final = false;  ///< Reached its end with children outstanding (implicit join pending).
  /// sizeof(T) of the task's `task<T>` (0 for void): with `result`, the bytes a child whose
  /// parent moved to another process sends after it (set by the promise's constructor).
  std::uint32_t result_bytes = 0;

  frame() noexcept : parent(nullptr) {}
  frame(const frame&) = delete;
  frame& operator=(const frame&) = delete;

  /// Records `e` unless an exception is already stored; several children may fail concurrently.
  /// Never allocates: the exception_ptr lives in the frame.
  void stash_exception(std::exception_ptr e) noexcept {
    // acq_rel: exactly one writer wins the flag; the stored pointer itself is published to the
    // reader by the join counter's release/acquire (or by program order when nothing was stolen).
    if (!has_exception.exchange(true, std::memory_order_acq_rel)) {
      if (const exception_codec* codec = read_tls_exception_codec();
          TINE_UNLIKELY(codec != nullptr)) {
        const std::uintptr_t token = codec->encode(codec->self, std::move(e));
        std::memcpy(m_exception, &token, sizeof token);
        return;
      }
      ::new (static_cast<void*>(m_exception)) std::exception_ptr(std::move(e));
    }
  }

  /// Takes the stored exception (the caller has synchronised with every child).
  std::exception_ptr take_exception() noexcept {
    if (const exception_codec* codec = read_tls_exception_codec();
        TINE_UNLIKELY(codec != nullptr)) {
      std::uintptr_t token = 0;
      std::memcpy(&token, m_exception, sizeof token);
      has_exception.store(false, std::memory_order_relaxed);
      return codec->decode(codec->self, token);
    }
    auto* stored = std::launder(reinterpret_cast<std::exception_ptr*>(m_exception));
    std::exception_ptr e = std::move(*stored);
    stored->~exception_ptr();
    has_exception.store(false, std::memory_order_relaxed);
    return e;
  }

 private:
  /// Raw storage, so that the frame stays trivially destructible: frames are freed without
  /// running destructors, and an exception is always taken out before its frame is freed.
  alignas(std::exception_ptr) std::byte m_exception[sizeof(std::exception_ptr)];
};

static_assert(sizeof(std::uintptr_t) <= sizeof(std::exception_ptr),
              "an exception codec's token takes the place of the exception_ptr");
static_assert(std::is_trivially_destructible_v<frame>,
              "frames are freed without running destructors");

/// The coroutine whose promise starts with `f` (every tine promise begins with its frame header
/// and has the frame's alignment). This is what std::coroutine_handle<P>::from_promise computes,
/// without needing the promise type here; get_return_object checks it in debug builds.
inline std::coroutine_handle<> handle_of(frame* f) noexcept {
  return std::coroutine_handle<>::from_address(__builtin_coro_promise(f, alignof(frame), true));
}

}  // namespace tine::detail

#endif  // TINE_CORE_FRAME_HPP
