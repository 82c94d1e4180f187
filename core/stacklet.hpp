#ifndef TINE_CORE_STACKLET_HPP
#define TINE_CORE_STACKLET_HPP

/// \file stacklet.hpp
/// The geometric segmented stack that holds task frames (libfork paper, section III-A).
///
/// A stack is a doubly linked chain of *stacklets*: contiguous blocks with a 32-byte header.
/// Allocation is a pointer bump on the top stacklet; when it does not fit, the next stacklet is at
/// least twice the size of the current one, so n allocations cost n pointer bumps plus O(log n)
/// heap allocations. Frees are strictly FILO. When a stacklet empties it is kept as a cache (at
/// most one per stack) so that a loop that allocates and frees across a boundary ("hot
/// splitting") does not hit the heap each time.
///
/// A stack is identified by its top stacklet; ownership of a stack moves between workers at
/// joins (see `context.hpp`), never concurrently.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <tine/core/config.hpp>

#if defined(__unix__)
#include <sys/mman.h>
#endif

namespace tine::detail {

#if defined(__unix__)
inline void* map_pages(std::size_t bytes) noexcept {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}
inline void unmap_pages(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }
#else
inline void* map_pages(std::size_t bytes) noexcept { return std::malloc(bytes); }
inline void unmap_pages(void* p, std::size_t) noexcept { std::free(p); }
#endif

/// Every allocation on a stack is rounded up to (and aligned at) this many bytes.
inline constexpr std::size_t stack_alignment = alignof(std::max_align_t);

/// Usable bytes of the first stacklet of a fresh stack.
inline constexpr std::size_t initial_stacklet_bytes = 8 * 1024 - 64;

constexpr std::size_t round_to_stack_alignment(std::size_t n) noexcept {
  return (n + stack_alignment - 1) & ~(stack_alignment - 1);
}

inline constexpr std::size_t page_bytes = 4096;

constexpr std::size_t round_to_page(std::size_t n) noexcept {
  return (n + page_bytes - 1) & ~(page_bytes - 1);
}

struct alignas(stack_alignment) stacklet {
  stacklet* prev;  ///< Older stacklet of the same stack (null at the bottom).
  stacklet* next;  ///< Cached empty stacklet above this one, or null.
  std::byte* sp;   ///< First free byte.
  std::byte* end;  ///< One past the last usable byte.

  std::byte* base() noexcept { return reinterpret_cast<std::byte*>(this + 1); }
  std::size_t capacity() noexcept { return static_cast<std::size_t>(end - base()); }
  bool empty() noexcept { return sp == base(); }
};

static_assert(sizeof(stacklet) == 32, "the stacklet header is four pointers");

/// Stacklets at least this large are mapped from the OS directly, so that freeing one returns its
/// pages at once (the C heap may keep a freed large block resident, and a deep strand's stacklets
/// are megabytes).
inline constexpr std::size_t mapped_stacklet_bytes = 256 * 1024;

/// A new, empty stacklet with room for at least `bytes`; throws std::bad_alloc.
inline stacklet* make_stacklet(std::size_t bytes, stacklet* prev) {
  bytes = round_to_stack_alignment(bytes);
  void* raw = nullptr;
  if (bytes + sizeof(stacklet) >= mapped_stacklet_bytes) {
    bytes = round_to_page(bytes + sizeof(stacklet)) - sizeof(stacklet);
    raw = map_pages(bytes + sizeof(stacklet));
  } else {
    raw = std::malloc(sizeof(stacklet) + bytes);
  }
  if (raw == nullptr) {
    throw std::bad_alloc();
  }
  auto* s = ::new (raw) stacklet{prev, nullptr, nullptr, nullptr};
  s->sp = s->base();
  s->end = s->base() + bytes;
  return s;
}

inline void free_stacklet(stacklet* s) noexcept {
  const std::size_t total = sizeof(stacklet) + s->capacity();
  if (total >= mapped_stacklet_bytes) {
    unmap_pages(s, total);
  } else {
    std::free(s);
  }
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

TINE_NOINLINE inline void* stack_push_slow(stacklet*& top, std::size_t bytes) {
  stacklet* cached = top->next;
  if (cached != nullptr && cached->capacity() >= bytes) {
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

/// Allocates `bytes` (rounded up to `stack_alignment`) on the stack whose top is `top`.
TINE_ALWAYS_INLINE void* stack_push(stacklet*& top, std::size_t bytes) {
  bytes = round_to_stack_alignment(bytes);
  if (TINE_LIKELY(static_cast<std::size_t>(top->end - top->sp) >= bytes)) {
    void* p = top->sp;
    top->sp += bytes;
    return p;
  }
  return stack_push_slow(top, bytes);
}

TINE_NOINLINE inline void stack_pop_slow(stacklet*& top) noexcept {
  // `top` just emptied: it becomes the (single) cache of its predecessor.
  stacklet* emptied = top;
  if (emptied->next != nullptr) {
    free_stacklet(emptied->next);
    emptied->next = nullptr;
  }
  top = emptied->prev;
}

/// Frees the most recent allocation, which starts at `p`, from the stack whose top is `top`.
TINE_ALWAYS_INLINE void stack_pop(stacklet*& top, void* p) noexcept {
  TINE_ASSERT(static_cast<std::byte*>(p) >= top->base() && static_cast<std::byte*>(p) <= top->sp,
              "stack frees must be FILO");
  top->sp = static_cast<std::byte*>(p);
  if (TINE_UNLIKELY(top->sp == top->base()) && top->prev != nullptr) {
    stack_pop_slow(top);
  }
}

}  // namespace tine::detail

#endif  // TINE_CORE_STACKLET_HPP
