#ifndef TINE_CORE_FRAME_HPP
#define TINE_CORE_FRAME_HPP

/// \file frame.hpp
/// The header every task's coroutine promise carries: who to resume next, where the task's stack
/// is, Nowa's wait-free split join counter (Nowa paper, section IV), the task's place in the fork
/// tree (for tine::dprng) and where the views of its stolen strands wait for its join (for
/// tine::reducer).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <bit>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <type_traits>

#include <tine/core/stacklet.hpp>

namespace tine::detail {

struct root_sink;
struct strand_views;

/// How a worker whose frames may move to another process keeps the exceptions it stores in them
/// (the distributed pool's): `encode` turns an exception into a token that fits the frame and
/// means something on every process (the pool: an entry of the rank that stored it, whose
/// description any rank can read), and `decode` turns a token back into an exception, once.
/// Installed per thread with `set_exception_codec`; without one, frames hold the
/// `std::exception_ptr` itself.
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

/// Whether the calling thread's frames may move to another process: said explicitly by its
/// worker backend having a process boundary (worker_backend::boundary, the distributed pool's on
/// more than one rank), never inferred. Read through an accessor, as the codec.
inline thread_local bool tls_frames_leave_process = false;

/// Whether the calling worker's frames may move to another process. tine::reducer and
/// tine::dprng refuse to work there (a view lives in one process's heap, and a moved frame's
/// ancestors stay behind), and a returned value is kept for an arrival at a parent elsewhere.
TINE_TLS_ACCESSOR bool frames_may_leave_process() noexcept { return tls_frames_leave_process; }

/// Sets whether the calling thread's frames may move to another process (worker_context's
/// set_backend does, from the backend's process boundary); between two pieces of work. Such a
/// thread must also have an exception codec (the boundary's): a frame's exception must mean the
/// same in the other process.
inline void set_frames_leave_process(bool leave) noexcept { tls_frames_leave_process = leave; }

/// Makes `codec` (null: none) the calling thread's; between two pieces of work, with no exception
/// stored in any frame of the worker.
inline void set_exception_codec(const exception_codec* codec) noexcept {
  tls_exception_codec = codec;
}

/// Where the calling thread's last keep_returned_bytes put its copy.
inline thread_local const std::byte* last_kept_returned = nullptr;

TINE_TLS_ACCESSOR const std::byte* kept_returned_bytes() noexcept { return last_kept_returned; }

/// Keeps a copy of a result larger than frame::returned_capacity for the calling worker, whose
/// frames may leave the process (see frame::returned): copies `n` bytes from `p` into the
/// thread's buffer, which kept_returned_bytes() reads until the thread's next call. The buffer
/// grows to the largest result kept and lives as long as the thread.
TINE_TLS_ACCESSOR void keep_returned_bytes(const void* p, std::size_t n) noexcept {
  struct buffer {
    std::byte* bytes = nullptr;
    std::size_t capacity = 0;
    ~buffer() { ::operator delete(bytes); }
  };
  static thread_local buffer kept;
  if (n > kept.capacity) {
    auto* grown = static_cast<std::byte*>(::operator new(n, std::nothrow));
    if (grown == nullptr) {
      fatal("out of memory keeping a task's result for its arrival at a moved parent's join");
    }
    ::operator delete(kept.bytes);
    kept.bytes = grown;
    kept.capacity = n;
  }
  std::memcpy(kept.bytes, p, n);
  last_kept_returned = kept.bytes;
}

/// How a task was started, which decides what its final awaitable does.
enum class frame_kind : std::uint8_t {
  root,  ///< started by sync_wait: report to a root_sink
  call,  ///< started by tine::call: the parent waits, resume it directly
  fork,  ///< started by tine::fork: the parent's continuation may have been stolen
};

/// A task's place in the fork tree (its pedigree, used by tine::dprng; see reducers/pedigree.hpp),
/// in one 8-byte word so that a fork writes its child's with a single store.
struct pedigree_word {
  /// The task's rank among its parent's children, with three flag bits (reducers/pedigree.hpp):
  /// what a fork wrote, or 0 for a called child until a generator needs its rank.
  std::uint32_t rank = 0;
  /// The ranks this task has handed out so far (to forked children, called children that claimed
  /// one, and generators), times pedigree_step.
  std::uint32_t spawned = 0;
};

/// Ranks advance by this much, leaving the three low bits of `pedigree_word::rank` for flags.
inline constexpr std::uint32_t pedigree_step = 8;

/// The flag of `pedigree_word::rank` that marks a task pedigrees pass through
/// (reducers/pedigree.hpp).
inline constexpr std::uint32_t pedigree_transparent = 4;

/// The pedigree word of a child forked as its parent's `rank`-th: that rank, nothing spawned yet.
/// Built as one 64-bit value, so that the fork stores it in one instruction.
TINE_ALWAYS_INLINE pedigree_word forked_pedigree(std::uint32_t rank) noexcept {
  static_assert(sizeof(pedigree_word) == sizeof(std::uint64_t));
  const std::uint64_t bits = std::endian::native == std::endian::little
                                 ? static_cast<std::uint64_t>(rank)
                                 : static_cast<std::uint64_t>(rank) << 32;
  return std::bit_cast<pedigree_word>(bits);
}

struct frame;

/// A by-value parameter of a task that pedigrees pass through (algorithms/detail/index_keys.hpp,
/// for the parallel algorithms' leaves, which are called, never forked): the task's promise marks
/// the frame when the task is created (promise_of's constructor), at no cost to other tasks, and
/// tells the parameter where the frame is, so that the task can set the index of the bodies it
/// calls without a co_await.
struct pedigree_pass {
  /// The role in which the task calls bodies (algorithms/detail/index_keys.hpp), from the caller.
  std::uint32_t role = 0;
  /// The task's frame, set by its promise.
  frame* self = nullptr;

  /// The frame's index, which the next body called reads if it asks for a stream: the task's
  /// loop variable over element indices, starting at `first`.
  std::uint64_t& index_from(std::uint64_t first) const noexcept;

  /// The next body called is applied at `index`.
  void at(std::uint64_t index) const noexcept { index_from(index); }

  /// The next body called is applied in `body_role` (for a task that calls bodies in two roles).
  void as(std::uint32_t body_role) const noexcept;

  /// By the promise: `f` is the task's frame, transparent, its bodies in `role`, at index 0.
  void enter(frame& f) noexcept;
};

struct frame {
  /// Nowa's I_max: the join counter starts here, so it cannot reach zero before the explicit join
  /// subtracts (I_max - steals).
  static constexpr std::uint32_t max_joins = std::numeric_limits<std::uint32_t>::max();

  union {
    frame* parent;    ///< kind call/fork: the task that started this one.
    root_sink* root;  ///< kind root: where the result is reported.
  };
  /// tine::reducer: the views of the strand that was running when the current fork-join scope
  /// opened (its leftmost strand), left here by that strand when it arrives at the join of a
  /// scope that was stolen, for the last strand to arrive (worker_strands.hpp). Not initialised:
  /// read only after that strand wrote it.
  strand_views* views_left;
  /// Where co_return writes the task's value (a `T*` of the task's `task<T>`); null when the value
  /// is discarded or the task returns void.
  void* result = nullptr;
  /// Top stacklet of the stack this frame lives on, recorded whenever the task may give up its
  /// worker (the first fork of a scope, resume_on): the worker that resumes it adopts that stack.
  stacklet* stack = nullptr;
  /// Start of the lowest stack_array destroyed inside the current fork-join scope while the task
  /// was stolen: children may still write into it, so it is freed at the join (null: none).
  std::byte* release_at_join = nullptr;
  /// The task's place in the fork tree (reducers/pedigree.hpp). Zero for a new frame: a called
  /// child's constructor writes it with the fields above in the same wide stores; a fork overwrites
  /// it.
  pedigree_word pedigree;
  std::atomic<std::uint32_t> joins{max_joins};  ///< Nowa's N'_tau = I_max - joined strands.
  std::uint32_t steals = 0;  ///< Times the continuation was stolen (Nowa's alpha).
  /// What the fast paths of a join and of a task's end test in one load, nonzero rarely: bit
  /// `exception_stored`, set once an exception is stored in `running.exception` (the first one
  /// wins); bit `observed`, set by a worker backend that watches this frame's joins and end
  /// (worker_backend::observed; tine::analyze); and bit `relay`, set when a check meant perhaps
  /// for a task that waits on this one was used up here, which this task's end passes on
  /// (push_checks.hpp).
  std::atomic<std::uint8_t> attention{0};
  frame_kind kind = frame_kind::call;
  bool in_scope = false;  ///< Forked since the last join.
  bool at_final = false;  ///< Reached its end with children outstanding (implicit join pending).
  /// sizeof(T) of the task's `task<T>` (0 for void): with `result`, the bytes a child whose
  /// parent moved to another process sends after it (set by the promise's constructor).
  std::uint32_t result_bytes = 0;

  /// Leaves `parent` unset: whoever starts the task writes it (a spawn its parent, sync_wait its
  /// root), and leaving it out lets the constructor zero `pedigree` in the stores it already makes.
  frame() noexcept {}
  frame(const frame&) = delete;
  frame& operator=(const frame&) = delete;

  /// Bits of `attention`.
  static constexpr std::uint8_t exception_stored = 1;
  static constexpr std::uint8_t observed = 2;
  static constexpr std::uint8_t relay = 4;

  /// Whether an exception is stored.
  bool holds_exception(std::memory_order order) const noexcept {
    return (attention.load(order) & exception_stored) != 0;
  }

  /// Records `e` unless an exception is already stored; several children may fail concurrently.
  /// Never allocates: the exception_ptr lives in the frame.
  void stash_exception(std::exception_ptr e) noexcept {
    // acq_rel: exactly one writer wins the bit; the stored pointer itself is published to the
    // reader by the join counter's release/acquire (or by program order when nothing was stolen).
    if ((attention.fetch_or(exception_stored, std::memory_order_acq_rel) & exception_stored) == 0) {
      if (const exception_codec* codec = read_tls_exception_codec();
          TINE_UNLIKELY(codec != nullptr)) {
        const std::uintptr_t token = codec->encode(codec->self, std::move(e));
        std::memcpy(running.exception, &token, sizeof token);
        return;
      }
      ::new (static_cast<void*>(running.exception)) std::exception_ptr(std::move(e));
    }
  }

  /// Sets bit `relay` (push_checks.hpp). relaxed, and a read-modify-write: other strands may set
  /// the exception bit at the same time, and whoever reads the bit (the task's end, or a worker
  /// resuming it) has synchronised with this strand through the deque or the join's counter.
  void set_relay() noexcept { attention.fetch_or(relay, std::memory_order_relaxed); }

  /// Whether bit `relay` is set (the caller has synchronised with whoever set it).
  bool holds_relay() const noexcept {
    return (attention.load(std::memory_order_relaxed) & relay) != 0;
  }

  /// `attention` and `kind` read together, as exception_and_kind() returns them for a frame of
  /// kind `k` that needs no attention.
  static constexpr std::uint16_t clean(frame_kind k) noexcept {
    return std::endian::native == std::endian::little
               ? static_cast<std::uint16_t>(static_cast<std::uint16_t>(k) << 8)
               : static_cast<std::uint16_t>(k);
  }

  /// `attention` and `kind` in one load, for the final awaitable's dispatch. Only where no other
  /// strand may store an exception here: outside a fork-join scope (every child joined).
  std::uint16_t exception_and_kind() const noexcept {
    static_assert(offsetof(frame, kind) == offsetof(frame, attention) + 1 &&
                      sizeof(attention) == 1 && sizeof(kind) == 1,
                  "exception_and_kind reads attention and kind as two adjacent bytes");
    std::uint16_t bytes;
    std::memcpy(&bytes, reinterpret_cast<const std::byte*>(this) + offsetof(frame, attention),
                sizeof bytes);
    return bytes;
  }

  /// Takes the stored exception (the caller has synchronised with every child).
  std::exception_ptr take_exception() noexcept {
    if (const exception_codec* codec = read_tls_exception_codec();
        TINE_UNLIKELY(codec != nullptr)) {
      std::uintptr_t token = 0;
      std::memcpy(&token, running.exception, sizeof token);
      clear_exception_bit();
      return codec->decode(codec->self, token);
    }
    auto* stored = std::launder(reinterpret_cast<std::exception_ptr*>(running.exception));
    std::exception_ptr e = std::move(*stored);
    stored->~exception_ptr();
    clear_exception_bit();
    return e;
  }

 private:
  // relaxed: the taker has synchronised with every strand that could store an exception. A
  // read-modify-write, so that no other bit set meanwhile is lost (a cold path).
  void clear_exception_bit() noexcept {
    attention.fetch_and(static_cast<std::uint8_t>(~exception_stored), std::memory_order_relaxed);
  }

 public:
  /// What the frame holds only while its task runs.
  struct running_state {
    /// tine::dprng: the key of this task's place in the fork tree, once computed (valid when
    /// `pedigree.rank` has the cached flag), or, in a task that pedigrees pass through (the
    /// transparent flag), the index of the body it calls (reducers/pedigree.hpp). Not initialised.
    std::uint64_t position_key;
    /// tine::reducer: the views of the strands that began with steals of this task's
    /// continuation in the current scope, newest first. Each thief links its own here when it
    /// steals; they are merged by the last strand to arrive at the join (worker_strands.hpp). Not
    /// initialised: the first thief of a scope overwrites it.
    strand_views* views_stolen;
    /// The stored exception, as raw storage so that the frame stays trivially destructible:
    /// frames are freed without running destructors, and an exception is always taken out
    /// before its frame is freed.
    alignas(std::exception_ptr) std::byte exception[sizeof(std::exception_ptr)];
  };

  /// The bytes a task keeps of its result, from its `co_return` until it has arrived at its
  /// parent's join (results of at most this size; larger ones: keep_returned_bytes()).
  static constexpr std::size_t returned_capacity = sizeof(running_state);

  union {
    running_state running;
    /// A copy of the task's result, written by `co_return` after the result itself. Every member
    /// of `running` is dead by then: no strand reads this task's pedigree key or links views
    /// into it once its last join has returned, and a task that returns holds no exception.
    /// Why the copy: the result is written into this process's copy of the parent, and when the
    /// parent has moved to another process, that copy may be overwritten (another worker of
    /// this process steals the parent back) before the child's arrival reads the result there;
    /// the arrival sends these bytes instead (join_arrival::returned).
    std::byte returned[returned_capacity];
  };
};

// Plain accesses: the task's own strand writes the index between bodies, when no strand below it
// exists; strands below read it (through atomic_ref) while the body they belong to runs.
inline std::uint64_t& pedigree_pass::index_from(std::uint64_t first) const noexcept {
  self->running.position_key = first;
  return self->running.position_key;
}

inline void pedigree_pass::as(std::uint32_t body_role) const noexcept {
  self->pedigree.spawned = body_role * pedigree_step;
}

/// Makes `f` a task pedigrees pass through, calling bodies in `role`, at index 0 until it sets
/// one; at `f`'s start, before any strand below it exists. One store of both pedigree words:
/// the rank holds only the flag (a transparent task's rank is never used), the count the role's
/// rank. Plain stores by `f`'s own strand, as a fork writes its child's word: a strand below
/// reads them after `f`'s strand went on to start it, or after synchronising with it through the
/// steal that began its strand.
inline void make_transparent(frame& f, std::uint32_t role) noexcept {
  f.running.position_key = 0;
  f.pedigree = pedigree_word{pedigree_transparent, role * pedigree_step};
}

/// `f` (transparent) is about to call the body applied at element `index` in `role` (a
/// transparent task that forks, which advances the count that holds its role, gives the role
/// again). Plain stores by `f`'s own strand, before the call: the body and every strand below it
/// read them after it, and the previous body's subtree has ended (a call returns after its whole
/// subtree), so nothing reads the previous values any more.
inline void set_body_index(frame* f, std::uint64_t index, std::uint32_t role) noexcept {
  f->running.position_key = index;
  f->pedigree.spawned = role * pedigree_step;
}

inline void pedigree_pass::enter(frame& f) noexcept {
  self = &f;
  make_transparent(f, role);
}

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

/// The frame header of the tine task `h` (the inverse of handle_of).
inline frame* frame_of(std::coroutine_handle<> h) noexcept {
  return static_cast<frame*>(__builtin_coro_promise(h.address(), alignof(frame), false));
}

}  // namespace tine::detail

#endif  // TINE_CORE_FRAME_HPP
