#ifndef TINE_CORE_DEQUE_HPP
#define TINE_CORE_DEQUE_HPP

/// \file deque.hpp
/// `tine::deque<T>`: the Chase-Lev work-stealing deque.
///
/// Each worker owns one deque. The owner treats it as a stack: `push` and `pop` work on the
/// *bottom* end (LIFO), which keeps the most recently forked work hot in the owner's cache. Other
/// workers ("thieves") take the oldest work from the *top* end with `steal` (FIFO), which tends to
/// hand them the largest pieces of a divide-and-conquer computation.
///
/// Contract, per member:
/// - `push`, `pop`, `capacity`: the owner only, a single thread (the one that constructed the deque
///   or that it was handed to with a happens-before edge). Never concurrently with each other.
/// - `steal`, `size`, `empty`: any thread, concurrently with everything above and with each other.
/// - construction and destruction: no other operation may be running.
///
/// The ring buffer grows by doubling when `push` finds it full. An old buffer may still be read by
/// a thief that loaded its address before the switch, so retired buffers are kept (linked from the
/// new one) until the deque is destroyed: memory use is at most twice the peak capacity.
///
/// Algorithm and memory orderings: N. M. Lê, A. Pop, A. Cohen, F. Zappa Nardelli, "Correct and
/// Efficient Work-Stealing for Weak Memory Models", PPoPP 2013, figure 1, with the two corrections
/// later found by model checking (CDSChecker, Norris & Demsky, OOPSLA 2013):
///  (a) `push` must use the new buffer after a resize, not the one it loaded before, and
///  (b) the buffer pointer is published with release and read with acquire (the paper's consume is
///      treated as acquire by every compiler anyway, and acquire is what the proof needs).
/// Every atomic operation below carries a comment giving its ordering and the reason for it.
///
/// The store-load fence between `pop`'s write of `bottom` and its read of `top` (a locked
/// instruction on x86-64, the most expensive step of a fork/join) can be split unequally: built
/// with `asymmetric = true` on a system that supports it, the owner's half is a compiler barrier
/// and each thief pays a process-wide barrier instead (asymmetric_fence.hpp). Owners pop on every
/// join, thieves steal rarely, so the exchange pays where steals are few.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <type_traits>

#include <tine/core/asymmetric_fence.hpp>
#include <tine/core/owner_fence.hpp>

// GCC 12's ThreadSanitizer does not model std::atomic_thread_fence: it would neither see the
// synchronisation the fences create (and report races on data handed over through the deque that
// are not there) nor warn about missing ones (GCC warns with -Wtsan, an error under -Werror).
// Under TSan the deque therefore uses an equivalent formulation without standalone fences; see
// `detail::deque_order` below.
#if defined(__SANITIZE_THREAD__)
#define TINE_DEQUE_NO_FENCES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TINE_DEQUE_NO_FENCES 1
#endif
#endif

namespace tine {

/// Outcome of `deque::steal`.
enum class steal_status {
  success,  ///< an item was taken; it is in `steal_result::value`
  empty,    ///< the deque was observed empty
  lost,     ///< the deque was not empty but another thief (or the owner) won the race for the
            ///< item; retrying may succeed
};

/// What `deque::steal` returns: a status and, on success, the stolen item. On failure `value`
/// is value-initialised and meaningless.
template <typename T>
struct steal_result {
  steal_status status;
  T value;

  /// True when an item was stolen.
  explicit operator bool() const noexcept { return status == steal_status::success; }
};

namespace detail {

/// Assumed cache line size, to keep `top` and `bottom` apart (false sharing between the owner,
/// which writes `bottom` on every push/pop, and thieves, which write `top`). A constant rather
/// than std::hardware_destructive_interference_size: GCC 12 warns (-Winterference-size) about
/// using that in a header, because its value may change with -mtune and would change our layout.
inline constexpr std::size_t deque_cache_line = 64;

/// Memory orderings of the operations on `top` and `bottom`, in the two formulations.
///
/// Normal builds use the paper's orderings plus standalone fences. Under TSan, every operation on
/// `top` and `bottom` is seq_cst and the fences are dropped. That is at least as strong: each
/// seq_cst fence of the paper sits between two accesses to `top`/`bottom` that become seq_cst
/// themselves, and since C++20 (P0668) seq_cst operations take part in the single total order S
/// with the same constraints as a relaxed operation followed/preceded by a seq_cst fence; the
/// release fence in `push` is replaced by a seq_cst (hence release) store of `bottom`. TSan
/// understands acquire/release on atomic operations, so it then sees every happens-before edge the
/// deque provides. The TSan build pays for it (on x86-64 push's `bottom` store becomes a locked
/// exchange), but it is a checking build, not the one that is benchmarked.
struct deque_order {
#if defined(TINE_DEQUE_NO_FENCES)
  static constexpr bool fences = false;
  static constexpr std::memory_order push_load_top = std::memory_order_seq_cst;
  static constexpr std::memory_order push_store_bottom = std::memory_order_seq_cst;
  static constexpr std::memory_order pop_store_bottom = std::memory_order_seq_cst;
  static constexpr std::memory_order pop_load_top = std::memory_order_seq_cst;
  static constexpr std::memory_order pop_restore_bottom = std::memory_order_seq_cst;
  static constexpr std::memory_order steal_load_top = std::memory_order_seq_cst;
  static constexpr std::memory_order steal_load_bottom = std::memory_order_seq_cst;
#else
  static constexpr bool fences = true;
  static constexpr std::memory_order push_load_top = std::memory_order_acquire;
  static constexpr std::memory_order push_store_bottom = std::memory_order_relaxed;
  static constexpr std::memory_order pop_store_bottom = std::memory_order_relaxed;
  static constexpr std::memory_order pop_load_top = std::memory_order_relaxed;
  static constexpr std::memory_order pop_restore_bottom = std::memory_order_relaxed;
  static constexpr std::memory_order steal_load_top = std::memory_order_acquire;
  static constexpr std::memory_order steal_load_bottom = std::memory_order_acquire;
#endif
};

}  // namespace detail

/// The Chase-Lev work-stealing deque; see the file comment for the contract.
///
/// `T` is meant to be small (a pointer to a task frame, typically): it is copied in and out of
/// `std::atomic<T>` slots, so it must be trivially copyable and lock-free as an atomic.
template <typename T>
class deque {
  static_assert(std::is_trivially_copyable_v<T>,
                "tine::deque<T> stores T in std::atomic<T> slots, so T must be trivially copyable "
                "(store a pointer to the object instead).");
  static_assert(std::is_default_constructible_v<T>,
                "tine::deque<T> needs a default-constructible T: std::atomic<T> requires it and "
                "a failed steal returns a value-initialised T.");
  static_assert(std::atomic<T>::is_always_lock_free,
                "tine::deque<T> needs std::atomic<T> to be lock-free, otherwise thieves would take "
                "a lock inside the atomic; use a pointer-sized T.");

  using index = std::int64_t;
  using order = detail::deque_order;

  // One ring buffer: a small header followed, in the same allocation, by `mask + 1` slots. Slots
  // are std::atomic<T> accessed with relaxed ordering: a thief may read a slot while the owner
  // overwrites it after wrapping around, and it then discards the value because its CAS on `top`
  // fails; making that read atomic keeps it from being a data race (undefined behaviour).
  struct alignas(std::atomic<T>) alignas(void*) ring {
    std::size_t mask;  // capacity - 1, capacity a power of two
    ring* retired;     // the buffer this one replaced, kept alive for slow thieves

    std::atomic<T>* slots() noexcept {
      return std::launder(
          reinterpret_cast<std::atomic<T>*>(reinterpret_cast<std::byte*>(this) + sizeof(ring)));
    }
    std::atomic<T>& at(index i) noexcept { return slots()[static_cast<std::size_t>(i) & mask]; }
    std::size_t capacity() const noexcept { return mask + 1; }

    static std::size_t bytes(std::size_t capacity) noexcept {
      return sizeof(ring) + capacity * sizeof(std::atomic<T>);
    }

    // Throws std::bad_alloc; `capacity` is a power of two.
    static ring* create(std::size_t capacity, ring* retired) {
      void* raw = ::operator new(bytes(capacity), std::align_val_t{alignof(ring)});
      ring* r = ::new (raw) ring{capacity - 1, retired};
      // Non-allocating array placement new has no overhead (CWG 2382), so the slots start right
      // after the header, where slots() finds them. Value-initialised: every slot holds T{}.
      ::new (static_cast<void*>(reinterpret_cast<std::byte*>(raw) + sizeof(ring)))
          std::atomic<T>[ capacity ]();
      return r;
    }

    // std::atomic<T> and ring are trivially destructible: releasing the storage ends them.
    // The unsized aligned form: the sized one is declared only under -fsized-deallocation,
    // which Clang before 19 does not enable by default (libstdc++ ignores the size anyway).
    static void destroy(ring* r) noexcept {
      ::operator delete(static_cast<void*>(r), std::align_val_t{alignof(ring)});
    }
  };

  static constexpr std::size_t max_capacity = std::size_t{1} << 40;

 public:
  /// Creates an empty deque with room for `capacity` items before the first growth, rounded up to
  /// a power of two (at least 2). `asymmetric`: split pop's store-load fence, the owner's half a
  /// compiler barrier, the thieves' a process-wide barrier (see the file comment); ignored where
  /// the system cannot (asymmetric_fences() tells). Throws std::bad_alloc if the capacity is
  /// absurdly large or memory runs out.
  explicit deque(std::size_t capacity = 1024, bool asymmetric = false)
      : deque(capacity, asymmetric ? owner_fence::asymmetric : owner_fence::full) {}

  /// As above, with the fence of owner_fence.hpp: `full` and `asymmetric` as `asymmetric` false
  /// and true; `none`, a promise that only the owner ever calls `steal`, makes `pop` as cheap as
  /// `pop_unshared` but for its last item.
  deque(std::size_t capacity, owner_fence fence)
      : m_array(ring::create(round_capacity(capacity), nullptr)),
        m_asymmetric(fence == owner_fence::asymmetric && order::fences &&
                     detail::asymmetric_fences_supported()),
        m_light_pop(m_asymmetric || fence == owner_fence::none) {
    // relaxed: the constructor's own store; the deque is handed to its owner with a
    // happens-before edge (see the contract).
    use_ring(m_array.load(std::memory_order_relaxed), 0);
  }

  deque(const deque&) = delete;
  deque& operator=(const deque&) = delete;

  /// Frees the current buffer and every retired one. No other thread may be using the deque.
  ~deque() {
    // relaxed: destruction requires that no thread uses the deque any more, which the caller
    // establishes with its own happens-before edge (a join, a barrier).
    ring* r = m_array.load(std::memory_order_relaxed);
    while (r != nullptr) {
      ring* older = r->retired;
      ring::destroy(r);
      r = older;
    }
  }

  /// Owner only. Pushes `value` at the bottom; doubles the buffer first if it is full. Throws
  /// std::bad_alloc if that growth fails, in which case the deque is unchanged.
  TINE_ALWAYS_INLINE void push(T value) {
    // relaxed: only the owner writes `bottom`, and we are the owner.
    const index b = m_bottom.load(std::memory_order_relaxed);
    // Below the limit, slot b was last used by an index below the `top` that set the limit, an
    // item taken before that acquire load of `top`: its thief's read of the slot happens-before
    // our overwrite. So the push reads `top` (a line thieves write) only at the limit.
    if (TINE_UNLIKELY(b >= m_limit)) {
      return push_at_limit(value, b);  // a tail call, so the fast path saves no registers
    }
    publish(b, value);
  }

  /// Owner only. Takes the most recently pushed item, or returns nullopt if there is none.
  TINE_ALWAYS_INLINE std::optional<T> pop() noexcept {
    // relaxed: owner-only variable.
    const index b = m_bottom.load(std::memory_order_relaxed) - 1;
    // relaxed + seq_cst fence (normal build) / seq_cst (TSan build): reserve slot b before
    // looking at `top`. The store and the following load of `top` must not be reordered
    // (store-load, the one reordering x86 does): either a thief sees the smaller `bottom` and
    // keeps off slot b, or we see the thief's larger `top` and fall back to the CAS below.
    m_bottom.store(b, order::pop_store_bottom);
    if constexpr (order::fences) {
      if (m_light_pop) {
        // The light half of the store-load barrier: keeps the compiler from hoisting the load
        // of `top` above the store; the thieves' heavy fence orders the hardware (see steal()).
        // (Without thieves, owner_fence::none, the load of `top` needs no ordering at all.)
        detail::light_fence();
      } else {
        // seq_cst fence: the Dekker-style store-load barrier described above; pairs with the
        // seq_cst fence in steal().
        std::atomic_thread_fence(std::memory_order_seq_cst);
      }
    }
    // relaxed after the fence (normal build) / seq_cst (TSan build): see above.
    index t = m_top.load(order::pop_load_top);
    if (TINE_LIKELY(t < b)) {
      // More than one item: slot b is ours alone; no thief can reach it. relaxed: we wrote it.
      return slot(b).load(std::memory_order_relaxed);
    }
    return pop_last(b, t);
  }

  /// Owner only, and only while no other thread can call `steal` (a deque nobody else steals
  /// from, such as a single-worker scheduler's: its owner steals from itself only when idle).
  /// Same result as `pop` without the store-load fence, which is most of pop's cost.
  TINE_ALWAYS_INLINE std::optional<T> pop_unshared() noexcept {
    // relaxed throughout: no other thread reads or writes `top` or `bottom` concurrently.
    const index b = m_bottom.load(std::memory_order_relaxed) - 1;
    const index t = m_top.load(std::memory_order_relaxed);
    if (t > b) {
      return std::nullopt;
    }
    m_bottom.store(b, std::memory_order_relaxed);
    return slot(b).load(std::memory_order_relaxed);
  }

  /// Any thread. Tries once to take the oldest item. `lost` means it raced with another thief or
  /// with the owner taking the last item; the caller may retry (or move on to another victim).
  steal_result<T> steal() noexcept {
    // acquire (normal build): synchronises with the CAS that produced this value of `top`, and
    // keeps the loads below from moving before this one. seq_cst under TSan (see deque_order).
    index t = m_top.load(order::steal_load_top);
    if constexpr (order::fences) {
      if (m_asymmetric) {
        // relaxed: a first look, to spare an empty deque the heavy fence. Seeing an old, smaller
        // `bottom` only makes us report `empty` as if we had looked a moment earlier.
        if (t >= m_bottom.load(std::memory_order_relaxed)) {
          return {steal_status::empty, T{}};
        }
        // The heavy half of the store-load barrier (pairs with pop()'s light fence): the owner
        // ran a full barrier at some point during this call. If its pop stored `bottom` before
        // that point, our load of `bottom` below sees the store; if after, its load of `top`
        // comes after our load of `top` above and sees it or a later value, so a pop of the
        // item we are after goes through the CAS. Never neither, as with two seq_cst fences.
        detail::heavy_fence();
      } else {
        // seq_cst fence: pairs with the owner's fence in pop(): either we see the owner's
        // decremented `bottom`, or the owner sees our `top` (via the CAS below) — never neither.
        std::atomic_thread_fence(std::memory_order_seq_cst);
      }
    }
    // acquire: synchronises with the release fence + `bottom` store in push(), so the slot (and
    // the item's pointee) written before that push is visible to us.
    const index b = m_bottom.load(order::steal_load_bottom);
    if (t >= b) {
      return {steal_status::empty, T{}};
    }
    // acquire, fix (b): synchronises with the release store in grow(), so the copied slots of a
    // new buffer are visible. (The paper used consume, which compilers implement as acquire.)
    ring* a = m_array.load(std::memory_order_acquire);
    // relaxed: the value is only trusted if the CAS below succeeds, which proves no one took
    // index t and (by the owner's acquire load of `top` in push) that the slot was not reused.
    T value = a->at(t).load(std::memory_order_relaxed);
    // seq_cst on success: claims index t in the total order shared with the owner's fence/CAS;
    // it is also the release the owner's acquire load of `top` in push() synchronises with.
    // relaxed on failure: we return `lost` and touch nothing.
    if (!m_top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                       std::memory_order_relaxed)) {
      return {steal_status::lost, T{}};
    }
    return {steal_status::success, value};
  }

  /// Any thread. Number of items; only a snapshot when other threads are pushing or stealing.
  std::size_t size() const noexcept {
    // acquire, both: an estimate, but one that orders: a caller that sees an item gone (the
    // CAS on `top` of the thief that took it) also sees what that thief wrote before (a pool's
    // destructor, checking that no work is left, relies on this). Nothing is read through the
    // slots on the strength of it. While a pop() or steal() is in flight `bottom` can be below
    // `top` for a moment, hence the clamp at zero.
    const index b = m_bottom.load(std::memory_order_acquire);
    const index t = m_top.load(std::memory_order_acquire);
    return b > t ? static_cast<std::size_t>(b - t) : 0;
  }

  /// Any thread. Whether the deque holds no item (a snapshot, like size()).
  bool empty() const noexcept { return size() == 0; }

  /// Whether pop's store-load fence is split (built with `asymmetric` on a system that supports
  /// it; never under ThreadSanitizer, whose build uses no standalone fences).
  bool asymmetric_fences() const noexcept { return m_asymmetric; }

  /// Owner only. Number of items the current buffer holds before the next growth.
  std::size_t capacity() const noexcept {
    // relaxed: owner-only variable.
    return m_array.load(std::memory_order_relaxed)->capacity();
  }

 private:
  // The end of pop() when slot b may be the last item or the deque is empty (t >= b). Out of
  // line: the common pop, a parent found below other items, stays a few instructions.
  TINE_NOINLINE std::optional<T> pop_last(index b, index t) noexcept {
    if (t == b) {
      // Last item: thieves may be after it too; whoever advances `top` from t owns it.
      // relaxed: we wrote the slot; the CAS decides whether we may keep the value.
      const T value = slot(b).load(std::memory_order_relaxed);
      // seq_cst on success: takes part in the total order with the thieves' fences/CASes, as in
      // the paper; relaxed on failure: we only learn that a thief won and touch nothing shared.
      const bool won = m_top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                                     std::memory_order_relaxed);
      // Either way the deque is now empty (top == b + 1): restore `bottom` to match.
      restore_bottom(b + 1);
      if (won) {
        return value;
      }
      return std::nullopt;
    }
    // Already empty (t == b + 1): undo the decrement.
    restore_bottom(b + 1);
    return std::nullopt;
  }

  // The end of pop() when it did not take an item below `top`: bring `bottom` back to `top`.
  void restore_bottom(index b) noexcept {
    // relaxed (normal build): a thief that reads this value finds t >= bottom or loses its CAS
    // on `top` (which already moved past its index), so it takes no item on the strength of it.
    // seq_cst under TSan, to keep the whole top/bottom protocol in the total order there.
    m_bottom.store(b, order::pop_restore_bottom);
  }

  static std::size_t round_capacity(std::size_t capacity) {
    if (capacity > max_capacity) {
      throw std::bad_alloc();
    }
    return capacity < 2 ? 2 : std::bit_ceil(capacity);
  }

  // Owner: the slot of index i in the current buffer, through the owner's copies of its slots and
  // mask (a thief reads them from the buffer it loaded, which may be an older one).
  std::atomic<T>& slot(index i) noexcept { return m_slots[static_cast<std::size_t>(i) & m_mask]; }

  // Owner: makes `a` the buffer push and pop use, with `top` last seen at `t`.
  void use_ring(ring* a, index t) noexcept {
    m_slots = a->slots();
    m_mask = a->mask;
    m_limit = t + static_cast<index>(a->capacity());
  }

  // The end of push(): writes `value` into slot b and makes it visible to thieves. Always
  // inlined into push, which is on every fork (GCC leaves it out of line in a large unit).
  TINE_ALWAYS_INLINE void publish(index b, T value) noexcept {
    // relaxed: published to thieves by the release fence + `bottom` store below.
    slot(b).store(value, std::memory_order_relaxed);
    if constexpr (order::fences) {
      // release fence: orders the slot store above (and everything the owner wrote to the item's
      // pointee before pushing it) before the `bottom` store, so a thief that reads the new
      // `bottom` with acquire sees the item. (TSan build: the store itself is seq_cst.)
      std::atomic_thread_fence(std::memory_order_release);
    }
    // relaxed after the release fence (normal build) / seq_cst (TSan build): see the fence.
    m_bottom.store(b + 1, order::push_store_bottom);
  }

  // Slow path of push(): index b reached the limit set when `top` was last read. Reads `top`
  // again; if the buffer is really full, grows it first. Strong exception guarantee: if the
  // allocation throws, nothing has changed.
  TINE_NOINLINE void push_at_limit(T value, index b) {
    // acquire (normal build): synchronises with the seq_cst CAS of the thief that last advanced
    // `top`, so that every thief's read of a slot below it happens-before our overwrites of
    // those slots until the next limit (otherwise its read could return our new value although
    // its CAS succeeded).
    const index t = m_top.load(order::push_load_top);
    // relaxed: only the owner writes `array`.
    ring* a = m_array.load(std::memory_order_relaxed);
    if (b - t > static_cast<index>(a->mask)) {
      return grow_and_push(value, a, t, b);
    }
    m_limit = t + static_cast<index>(a->capacity());
    publish(b, value);
  }

  // Cold path of push(): replaces the full buffer `old` by one twice as large holding the items
  // [t, b), then pushes.
  TINE_NOINLINE [[gnu::cold]] void grow_and_push(T value, ring* old, index t, index b) {
    if (old->capacity() >= max_capacity) {
      throw std::bad_alloc();
    }
    ring* bigger = ring::create(old->capacity() * 2, old);
    // `t` may be stale (thieves may have advanced `top` since), which only copies a few dead
    // items; the indices keep their meaning because both buffers are indexed modulo capacity.
    for (index i = t; i < b; ++i) {
      // relaxed, both: the old slots were written by us; the new ones are published by the
      // release store below.
      bigger->at(i).store(old->at(i).load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    // release, fix (b): publishes the copied slots (and the header) to thieves, whose acquire
    // load of `array` in steal() synchronises with this store.
    m_array.store(bigger, std::memory_order_release);
    // Fix (a): the original paper went on writing into the old buffer here, where thieves that
    // load the new pointer never look. relaxed: owner-only variable, our own store just above.
    use_ring(m_array.load(std::memory_order_relaxed), t);
    publish(b, value);
  }

  // Written by the owner on every push/pop, read by thieves. `array` shares its line: thieves
  // read both on every steal, and the owner writes `array` only when growing. So does the fence
  // mode, a constant that pop and steal both read, and the owner's own view of the buffer, which
  // push and pop read beside `bottom`.
  alignas(detail::deque_cache_line) std::atomic<index> m_bottom{0};
  std::atomic<ring*> m_array;
  std::atomic<T>* m_slots = nullptr;  // owner only: the current buffer's slots
  std::size_t m_mask = 0;             // owner only: the current buffer's mask
  index m_limit = 0;                  // owner only: push reads `top` again at this index
  const bool m_asymmetric;            // thieves pay the heavy fence
  const bool m_light_pop;             // pop's fence is a compiler barrier (asymmetric or none)
  // Written by thieves (CAS) and by the owner when taking the last item.
  alignas(detail::deque_cache_line) std::atomic<index> m_top{0};
};

}  // namespace tine

#undef TINE_DEQUE_NO_FENCES

#endif  // TINE_CORE_DEQUE_HPP
