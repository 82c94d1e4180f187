#ifndef TINE_CORE_STACKLET_HPP
#define TINE_CORE_STACKLET_HPP

/// \file stacklet.hpp
/// The geometric segmented stack that holds task frames (libfork paper, section III-A).
///
/// A stack is a doubly linked chain of *stacklets*: contiguous blocks with a 64-byte header.
/// Allocation is a pointer bump on the top stacklet; when it does not fit, the next stacklet is at
/// least twice the size of the current one, so n allocations cost n pointer bumps plus O(log n)
/// heap allocations. Frees are strictly FILO.
///
/// Every allocation starts on a 64-byte boundary (`stack_alignment`): a coroutine frame is laid
/// out by the compiler as if its start had the alignment of its most aligned member, so frames
/// holding `alignas(32)` or `alignas(64)` objects (AVX vectors, cache-line padded counters) need
/// it. Sizes are rounded up at compile time (the frame size is a constant), so this costs no
/// instruction on the allocation path, only padding.
///
/// The cache rule: when a stacklet empties it stays linked above its predecessor as a cache, so a
/// task that forks across a stacklet boundary in a loop ("hot splitting") does not go to the heap
/// each time, but only if it is at most twice its predecessor's size, that is, a stacklet of the
/// geometric sequence. A stacklet made for one large allocation (a big `stack_alloc`) is freed as
/// soon as it empties, so it does not pin memory. A stack parked with a suspended task keeps no
/// cache at all (`trim_cache`).
///
/// A stack is identified by its top stacklet; ownership of a stack moves between workers at
/// joins (see `worker_stacks.hpp`), never concurrently.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message
#include <tine/core/root_context.hpp>
#include <tine/core/worker_hooks.hpp>

#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__unix__)
#include <sys/mman.h>
#endif

namespace tine::detail {

/// Every allocation on a stack is rounded up to (and aligned at) this many bytes: a cache line,
/// and the largest alignment a task's parameters, locals and result may have.
inline constexpr std::size_t stack_alignment = 64;

/// Usable bytes of the first stacklet of a fresh stack (the whole block is 8 KiB).
inline constexpr std::size_t initial_stacklet_bytes = 8 * 1024 - 64;

constexpr std::size_t round_to_stack_alignment(std::size_t n) noexcept {
  return (n + stack_alignment - 1) & ~(stack_alignment - 1);
}

constexpr std::size_t round_down_to_stack_alignment(std::size_t n) noexcept {
  return n & ~(stack_alignment - 1);
}

inline constexpr std::size_t page_bytes = 4096;

constexpr std::size_t round_to_page(std::size_t n) noexcept {
  return (n + page_bytes - 1) & ~(page_bytes - 1);
}

/// Where a thread's stacklets come from instead of the heap. A scheduler whose task frames must
/// sit at addresses of its choosing (the distributed pool's, in its rank's slice of the
/// uni-address region) installs one on its worker thread with `set_stacklet_source` before it
/// creates the worker's context. Each stacklet remembers its source and goes back to it when
/// freed, on whichever thread frees it.
struct stacklet_source {
  /// Memory for a stacklet of at least `total` bytes (its header included), aligned to
  /// `stack_alignment`, or null when there is none. May raise `total`: the stacklet then uses the
  /// whole block.
  void* (*allocate)(void* self, std::size_t& total) noexcept;
  /// Takes back a block from `allocate`, with the `total` that allocate left.
  void (*deallocate)(void* self, void* block, std::size_t total) noexcept;
  void* self;
};

struct alignas(stack_alignment) stacklet {
  stacklet* prev;                 ///< Older stacklet of the same stack (null at the bottom).
  stacklet* next;                 ///< Cached empty stacklet above this one, or null.
  std::byte* sp;                  ///< First free byte.
  std::byte* end;                 ///< One past the last usable byte.
  const stacklet_source* source;  ///< Where the block came from; null: the heap (or the OS).
  /// The root (or stop scope) of the tasks on this stacklet (root_context.hpp); set where a
  /// worker starts on an empty stack, copied into each stacklet that follows.
  root_context* context;

  std::byte* base() noexcept { return reinterpret_cast<std::byte*>(this + 1); }
  std::size_t capacity() noexcept { return static_cast<std::size_t>(end - base()); }
  bool empty() noexcept { return sp == base(); }
};

static_assert(sizeof(stacklet) == stack_alignment,
              "the stacklet header fills one alignment unit, so the first allocation is aligned");

/// Stacklets at least this large are mapped from the OS directly, so that freeing one returns its
/// pages at once (the C heap may keep a freed large block resident, and a deep strand's stacklets
/// are megabytes).
inline constexpr std::size_t mapped_stacklet_bytes = std::size_t{256} * 1024;

inline void* allocate_stacklet_memory(std::size_t total) noexcept {
  if (total >= mapped_stacklet_bytes) {
#if defined(__unix__)
    void* p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
#endif
  }
  // The replaceable aligned operator new: a program (or a test) that replaces it sees every
  // stacklet tine allocates.
  return ::operator new(total, std::align_val_t{stack_alignment}, std::nothrow);
}

inline void free_stacklet_memory(void* p, std::size_t total) noexcept {
#if defined(__unix__)
  if (total >= mapped_stacklet_bytes) {
    ::munmap(p, total);
    return;
  }
#endif
  (void)total;
  ::operator delete(p, std::align_val_t{stack_alignment});
}

/// The calling thread's stacklet source (null: the heap). Read through an accessor: stacklets
/// are made inside tasks, which may move between threads (see TINE_TLS_ACCESSOR).
inline thread_local const stacklet_source* tls_stacklet_source = nullptr;

TINE_TLS_ACCESSOR const stacklet_source* read_tls_stacklet_source() noexcept {
  return tls_stacklet_source;
}

/// Makes `source` (null: the heap) where the calling thread's new stacklets come from. `source`
/// must outlive every stacklet made from it.
inline void set_stacklet_source(const stacklet_source* source) noexcept {
  tls_stacklet_source = source;
}

/// A new, empty stacklet with room for at least `bytes`, or null when memory is short.
inline stacklet* try_make_stacklet(std::size_t bytes, stacklet* prev) noexcept {
  bytes = round_to_stack_alignment(bytes);
  if (bytes + sizeof(stacklet) >= mapped_stacklet_bytes) {
    bytes = round_to_page(bytes + sizeof(stacklet)) - sizeof(stacklet);
  }
  std::size_t total = sizeof(stacklet) + bytes;
  const stacklet_source* source = read_tls_stacklet_source();
  void* raw =
      source != nullptr ? source->allocate(source->self, total) : allocate_stacklet_memory(total);
  if (raw == nullptr) {
    return nullptr;
  }
  auto* s = ::new (raw)
      stacklet{prev, nullptr, nullptr, nullptr, source, prev != nullptr ? prev->context : nullptr};
  s->sp = s->base();
  s->end = static_cast<std::byte*>(raw) + round_down_to_stack_alignment(total);
  note_stacklet_allocated(total);
  return s;
}

/// As try_make_stacklet, but throws std::bad_alloc when memory is short.
inline stacklet* make_stacklet(std::size_t bytes, stacklet* prev) {
  stacklet* s = try_make_stacklet(bytes, prev);
  if (s == nullptr) {
    throw std::bad_alloc();
  }
  return s;
}

/// Out of line: stack code inlined into every task's body (a join adopting a stack, trimming a
/// cache) frees stacklets, and this, heap call and observer note included, stays out of it.
TINE_NOINLINE inline void free_stacklet(stacklet* s) noexcept {
  const std::size_t total = sizeof(stacklet) + s->capacity();
  note_stacklet_freed(total);
  if (const stacklet_source* source = s->source; source != nullptr) {
    source->deallocate(source->self, s, total);
    return;
  }
  free_stacklet_memory(s, total);
}

/// Frees every stacklet of the stack whose top is `top` (its cache and all older stacklets).
inline void free_stack(stacklet* top) noexcept {
  if (top == nullptr) {
    return;
  }
  if (top->next != nullptr) {
    free_stacklet(top->next);
  }
  while (top != nullptr) {
    stacklet* prev = top->prev;
    free_stacklet(top);
    top = prev;
  }
}

/// Frees the cached empty stacklet above `top`, if any.
inline void trim_cache(stacklet* top) noexcept {
  if (top->next != nullptr) {
    free_stacklet(top->next);
    top->next = nullptr;
  }
}

/// True when the stack whose top is `top` holds no allocation.
inline bool stack_is_empty(stacklet* top) noexcept { return top->prev == nullptr && top->empty(); }

/// The stack of a thread that is not a tine worker: it has no room, and stack_push_slow refuses to
/// grow it. A task's frame is allocated on whatever the thread's frame stack is
/// (worker_runtime.hpp: tls_frame_stack), which is this one on such a thread: creating a task
/// there ends the program with a message, without a test on the ramp's fast path.
inline constinit stacklet no_worker_stacklet{};
inline constinit stacklet* no_worker_top = &no_worker_stacklet;

TINE_NOINLINE inline void* stack_push_slow(stacklet*& top, std::size_t bytes) {
  if (TINE_UNLIKELY(top == &no_worker_stacklet)) {
    fatal(
        "a task was created on a thread that is not a tine worker; start tasks with "
        "tine::sync_wait(scheduler, fn, args...) or, inside a task, with tine::fork / "
        "tine::call");
  }
  stacklet* cached = top->next;
  if (cached != nullptr && cached->capacity() >= bytes) {
    cached->context = top->context;  // it may have held another root's tasks
    top = cached;
  } else {
    // Geometric growth: at least twice the current stacklet, and enough for this allocation.
    std::size_t want = 2 * top->capacity();
    if (want < bytes) {
      want = bytes;
    }
    stacklet* fresh = make_stacklet(want, top);
    if (cached != nullptr) {
      free_stacklet(cached);
    }
    top->next = fresh;
    top = fresh;
  }
  void* p = top->sp;
  top->sp += bytes;
  return p;
}

/// Allocates `bytes` (rounded up to `stack_alignment`) on the stack whose top is `top`; throws
/// std::bad_alloc when a new stacklet is needed and memory is short.
TINE_ALWAYS_INLINE void* stack_push(stacklet*& top, std::size_t bytes) {
  bytes = round_to_stack_alignment(bytes);
  if (TINE_LIKELY(static_cast<std::size_t>(top->end - top->sp) >= bytes)) {
    void* p = top->sp;
    top->sp += bytes;
    return p;
  }
  return stack_push_slow(top, bytes);
}

/// stack_push for a coroutine frame, whose size is the compiler's (far below 2^63): the end of
/// the allocation is compared with the stacklet's end, which takes two instructions fewer than
/// comparing the room left with the size (the form that is safe for any size).
TINE_ALWAYS_INLINE void* stack_push_frame(stacklet*& top, std::size_t bytes) {
  bytes = round_to_stack_alignment(bytes);
  stacklet* s = top;
  const auto start = reinterpret_cast<std::uintptr_t>(s->sp);
  // No wrap-around: `start` is a user-space address and `bytes` a frame's size.
  if (TINE_LIKELY(start + bytes <= reinterpret_cast<std::uintptr_t>(s->end))) {
    s->sp += bytes;
    return reinterpret_cast<void*>(start);
  }
  return stack_push_slow(top, bytes);
}

/// Makes an empty stacklet the top of the stack whose top is `top`, for the tasks of stop scope
/// `context` (root_context.hpp): the cached one above it, or a new one. Throws std::bad_alloc.
inline void begin_scope_stacklet(stacklet*& top, root_context* context) {
  stacklet* next = top->next;
  if (next == nullptr) {
    next = make_stacklet(2 * top->capacity(), top);  // geometric, as stack_push_slow
    top->next = next;
  }
  next->context = context;
  top = next;
}

TINE_NOINLINE inline void stack_pop_slow(stacklet*& top) noexcept {
  // `top` just emptied: its own cache goes, and it becomes the cache of its predecessor if it
  // belongs to the geometric sequence (the cache rule in the file comment).
  stacklet* emptied = top;
  trim_cache(emptied);
  top = emptied->prev;
  // (A page of slack: mapped stacklets are rounded up to whole pages.)
  if (emptied->capacity() > 2 * top->capacity() + page_bytes) {
    top->next = nullptr;
    free_stacklet(emptied);
  }
}

/// Undoes begin_scope_stacklet when nothing was allocated in the scope's stacklet since (the
/// scope's first task could not start); otherwise the stack already left it when that task's
/// frame was freed, and this does nothing.
inline void end_scope_stacklet(stacklet*& top, const root_context* context) noexcept {
  if (top->context == context && top->empty() && top->prev != nullptr) {
    stack_pop_slow(top);
  }
}

/// Frees the most recent allocation, which starts at `p`, from the stack whose top is `top`. In
/// checked builds, a free that is not the most recent allocation stops the program.
TINE_ALWAYS_INLINE void stack_pop(stacklet*& top, void* p) noexcept {
  TINE_CHECK(static_cast<std::byte*>(p) >= top->base() && static_cast<std::byte*>(p) <= top->sp,
             "stack frees must be FILO (a frame or a stack_array was freed out of order, or on "
             "another worker's stack)");
  top->sp = static_cast<std::byte*>(p);
  if (TINE_UNLIKELY(top->sp == top->base()) && top->prev != nullptr) {
    stack_pop_slow(top);
  }
}

}  // namespace tine::detail

#endif  // TINE_CORE_STACKLET_HPP
