#ifndef TINE_REDUCERS_VIEW_TABLE_HPP
#define TINE_REDUCERS_VIEW_TABLE_HPP

/// \file view_table.hpp
/// One strand's views of its reducers: an open-addressing hash table (linear probing, at most
/// half full) from a reducer's address to the strand's view of it. Only the strand that owns the
/// table touches it, except at a join, where the last strand to arrive merges the tables of the
/// others (views_layer.hpp), after synchronising with them.
///
/// A lookup that hits at the first probe reads the entries pointer, the mask and one entry: the
/// hot path of `reducer::view()`.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>
#include <new>

#include <tine/reducers/reducer_base.hpp>

namespace tine::detail {

class view_table {
 public:
  view_table() noexcept = default;
  view_table(const view_table&) = delete;
  view_table& operator=(const view_table&) = delete;

  /// The table must be empty: views are merged, folded or destroyed before their strand's record
  /// is recycled.
  ~view_table() {
    TINE_ASSERT(m_count == 0, "a strand's views were dropped without being merged");
    if (m_capacity != 0) {
      delete[] m_entries;
    }
  }

  /// The view of `key`, or null.
  TINE_ALWAYS_INLINE void* find(const reducer_base* key) const noexcept {
    std::size_t i = slot_of(key, m_mask);
    for (;;) {
      const entry& e = m_entries[i];
      if (TINE_LIKELY(e.key == key)) {
        return e.view;
      }
      if (e.key == nullptr) {
        return nullptr;
      }
      i = (i + 1) & m_mask;
    }
  }

  /// Adds `key` (absent) with `view`. Returns false, changing nothing, when the table must grow
  /// and there is no memory.
  bool insert(reducer_base* key, void* view) noexcept {
    if ((m_count + 1) * 2 > m_capacity && !grow()) {
      return false;
    }
    place(key, view);
    ++m_count;
    return true;
  }

  /// Removes `key` and returns its view, or null when it has none.
  void* remove(const reducer_base* key) noexcept {
    if (m_count == 0) {
      return nullptr;
    }
    std::size_t i = slot_of(key, m_mask);
    while (m_entries[i].key != key) {
      if (m_entries[i].key == nullptr) {
        return nullptr;
      }
      i = (i + 1) & m_mask;
    }
    void* view = m_entries[i].view;
    // Backward-shift deletion: move up every later entry of the run that may sit in the hole,
    // so that lookups never need tombstones.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & m_mask; m_entries[j].key != nullptr; j = (j + 1) & m_mask) {
      const std::size_t home = slot_of(m_entries[j].key, m_mask);
      // The entry at j may move to `hole` if its home is not cyclically within (hole, j].
      const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!stays) {
        m_entries[hole] = m_entries[j];
        hole = j;
      }
    }
    m_entries[hole] = entry{};
    --m_count;
    return view;
  }

  bool empty() const noexcept { return m_count == 0; }
  std::size_t size() const noexcept { return m_count; }

  /// Calls `fn(key, view)` for every entry, leaving the table empty (its memory is kept for the
  /// strand that reuses it). `fn` must not throw.
  template <typename Fn>
  void drain(Fn&& fn) noexcept {
    if (m_count == 0) {
      return;
    }
    for (std::size_t i = 0; i < m_capacity; ++i) {
      if (m_entries[i].key != nullptr) {
        const entry e = m_entries[i];
        m_entries[i] = entry{};
        fn(e.key, e.view);
      }
    }
    m_count = 0;
  }

 private:
  struct entry {  // entry{} is the free slot
    reducer_base* key;
    void* view;
  };

  static constexpr std::size_t first_capacity = 8;

  /// Reducers are distinct objects of at least 16 bytes: the address bits above the fourth
  /// separate them, and the higher ones spread reducers that sit a page apart.
  static std::size_t slot_of(const reducer_base* key, std::size_t mask) noexcept {
    const auto p = reinterpret_cast<std::uintptr_t>(key);
    return static_cast<std::size_t>((p >> 4) ^ (p >> 13)) & mask;
  }

  void place(reducer_base* key, void* view) noexcept {
    std::size_t i = slot_of(key, m_mask);
    while (m_entries[i].key != nullptr) {
      i = (i + 1) & m_mask;
    }
    m_entries[i] = entry{key, view};
  }

  TINE_NOINLINE bool grow() noexcept {
    const std::size_t capacity = m_capacity == 0 ? first_capacity : 2 * m_capacity;
    auto* fresh = new (std::nothrow) entry[capacity]();  // every slot free
    if (fresh == nullptr) {
      return false;
    }
    entry* old = m_entries;
    const std::size_t old_capacity = m_capacity;
    m_entries = fresh;
    m_capacity = capacity;
    m_mask = capacity - 1;
    for (std::size_t i = 0; i < old_capacity; ++i) {
      if (old[i].key != nullptr) {
        place(old[i].key, old[i].view);
      }
    }
    if (old_capacity != 0) {
      delete[] old;
    }
    return true;
  }

  /// An empty table probes this one free slot (mask 0) and needs no memory of its own; it is
  /// never written, since the first insert grows the table first.
  static inline entry s_no_entries[1] = {};

  entry* m_entries = s_no_entries;
  std::size_t m_mask = 0;
  std::size_t m_capacity = 0;
  std::size_t m_count = 0;
};

}  // namespace tine::detail

#endif  // TINE_REDUCERS_VIEW_TABLE_HPP
