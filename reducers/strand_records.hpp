#ifndef TINE_REDUCERS_STRAND_RECORDS_HPP
#define TINE_REDUCERS_STRAND_RECORDS_HPP

/// \file strand_records.hpp
/// Where the records of strands (views_layer.hpp) come from and go back to. Every steal takes
/// one and the join that completes the stolen scope gives it back, often on another worker than
/// the thief's; so each worker keeps a few spare records, hands its surplus to a process-wide
/// pool, and takes from that pool when it runs out, before it allocates. A program then stops
/// allocating records once it has as many as it ever holds at once. Records are malloc'ed, like
/// stacklets: memory of the runtime's steal paths.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>

#include <tine/core/frame.hpp>
#include <tine/core/worker_strands.hpp>
#include <tine/reducers/view_table.hpp>

namespace tine::detail {

/// The views of one strand, and where it stands among the strands of a scope.
struct strand_views {
  /// The task whose stolen continuation began this strand, null for a root.
  frame* owner = nullptr;
  /// Which steal of `owner`'s current scope began it (1 for the first).
  std::uint32_t index = 0;
  /// The next record of `owner`'s list of stolen strands (older steal), or of a spare list.
  strand_views* next = nullptr;
  view_table table;
};

/// A new record, or null when memory is short.
inline strand_views* make_record() noexcept {
  void* p = std::malloc(sizeof(strand_views));
  return p == nullptr ? nullptr : ::new (p) strand_views;
}

inline void free_record(strand_views* s) noexcept {
  s->~strand_views();
  std::free(s);
}

/// The process-wide pool of spare records. Cold: workers come here only in batches.
class shared_records {
 public:
  /// Never destroyed: workers of pools that outlive main's statics may still give records back.
  /// Made in static storage, not on the heap: the first call may come from a noexcept path.
  static shared_records& instance() noexcept {
    alignas(shared_records) static unsigned char storage[sizeof(shared_records)];
    static shared_records* pool = ::new (static_cast<void*>(storage)) shared_records;
    return *pool;
  }

  /// Takes up to `n` records, as a list; null when the pool is empty.
  strand_views* take(std::size_t n, std::size_t& taken) noexcept {
    std::lock_guard lock(m_mutex);
    strand_views* list = nullptr;
    taken = 0;
    while (taken < n && m_head != nullptr) {
      strand_views* s = std::exchange(m_head, m_head->next);
      s->next = list;
      list = s;
      ++taken;
    }
    m_count -= taken;
    return list;
  }

  /// Gives a list of records to the pool (freeing them past its bound).
  void give(strand_views* list) noexcept {
    std::lock_guard lock(m_mutex);
    while (list != nullptr) {
      strand_views* s = std::exchange(list, list->next);
      if (m_count >= bound) {
        free_record(s);
        continue;
      }
      s->next = m_head;
      m_head = s;
      ++m_count;
    }
  }

 private:
  static constexpr std::size_t bound = 4096;
  std::mutex m_mutex;
  strand_views* m_head = nullptr;
  std::size_t m_count = 0;
};

/// A worker's spare records, kept in the two words the core keeps for the strand layer on each
/// worker (worker_strands::words()): a list and its length.
class record_cache {
 public:
  explicit record_cache(worker_strands::layer_words& words) noexcept : m_words(words) {}

  /// Makes sure a spare is ready; false when memory is short.
  bool reserve() noexcept { return m_words.list != nullptr || refill(); }

  /// A spare (reserve() made sure there is one).
  strand_views* take() noexcept {
    strand_views* s = head();
    m_words.list = s->next;
    --m_words.count;
    s->next = nullptr;
    return s;
  }

  /// Keeps `s` (its table empty) as a spare, handing a batch to the pool past `most`.
  void put(strand_views* s) noexcept {
    s->next = head();
    m_words.list = s;
    if (++m_words.count > most) {
      strand_views* batch = nullptr;
      for (std::size_t i = 0; i < batch_size; ++i) {
        strand_views* t = head();
        m_words.list = t->next;
        t->next = batch;
        batch = t;
      }
      m_words.count -= batch_size;
      shared_records::instance().give(batch);
    }
  }

  /// The worker is gone: its spares go to the process-wide pool.
  void release() noexcept {
    shared_records::instance().give(head());
    m_words = {};
  }

 private:
  static constexpr std::size_t most = 32;
  static constexpr std::size_t batch_size = 16;

  strand_views* head() const noexcept { return static_cast<strand_views*>(m_words.list); }

  TINE_NOINLINE bool refill() noexcept {
    std::size_t taken = 0;
    strand_views* list = shared_records::instance().take(batch_size / 2, taken);
    if (list == nullptr) {
      list = make_record();
      taken = list == nullptr ? 0 : 1;
    }
    m_words = {list, taken};
    return list != nullptr;
  }

  worker_strands::layer_words& m_words;
};

}  // namespace tine::detail

#endif  // TINE_REDUCERS_STRAND_RECORDS_HPP
