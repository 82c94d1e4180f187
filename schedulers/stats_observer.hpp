#ifndef TINE_SCHEDULERS_STATS_OBSERVER_HPP
#define TINE_SCHEDULERS_STATS_OBSERVER_HPP

/// \file stats_observer.hpp
/// `tine::stats_observer`: a pool observer that counts and times what each worker does (busy,
/// looking for work, asleep), who stole from whom, and how much stack each worker held at most.
/// `report()` returns it all as a `tine::stats_report`, which prints as a table.
///
/// ```
/// tine::stats_observer stats;
/// {
///   tine::lazy_pool pool(2, stats);
///   tine::sync_wait(pool, fib, 30);
/// }  // the pool is gone: its workers have stopped writing
/// stats.report().print(std::cout);
/// ```
///
/// No lock and no allocation while the pool runs: each worker writes only its own slot (a
/// cache-line-aligned block, and its row of the steal matrix on lines of its own). The slots are
/// plain memory, so read them (`report()`) only when no worker writes: after the pool has been
/// destroyed (its destructor joins the workers, which orders their writes before the read).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <tine/schedulers/pool_observer.hpp>

namespace tine {

/// What one worker did while observed.
struct worker_report {
  std::uint64_t submissions = 0;      ///< Submitted tasks it took (root tasks, resume_on arrivals).
  std::uint64_t steal_attempts = 0;   ///< Victims it looked at (its own deque included).
  std::uint64_t steals = 0;           ///< Continuations it stole (sum of steals_from).
  std::uint64_t joins_suspended = 0;  ///< Tasks that suspended at a join on it.
  std::uint64_t joins_resumed = 0;    ///< Tasks it resumed as the last arrival at their join.
  std::uint64_t sleeps = 0;           ///< Times it went to sleep (lazy_pool).
  std::uint64_t wakes = 0;            ///< Times it woke up.
  std::uint64_t stacklets_allocated = 0;    ///< Stacklets it took from the heap...
  std::uint64_t stacklets_freed = 0;        ///< ...and gave back.
  std::uint64_t stack_bytes_allocated = 0;  ///< Their bytes (headers included).
  std::uint64_t stack_bytes_freed = 0;
  /// The most stack memory this worker held at once: the high-water mark of (bytes it
  /// allocated - bytes it freed). Stacks change hands at joins, so this is a per-worker view; in
  /// `total()` it is the sum of the workers' marks, an upper bound of the pool's peak.
  std::uint64_t stack_high_water = 0;
  std::chrono::nanoseconds busy{0};        ///< Time running tasks.
  std::chrono::nanoseconds stealing{0};    ///< Time looking for work (awake, not running tasks).
  std::chrono::nanoseconds asleep{0};      ///< Time parked on its event count (lazy_pool).
  std::vector<std::uint64_t> steals_from;  ///< Steals by victim index (a row of the matrix).

  /// Adds `o` field by field (steals_from element-wise, stack_high_water summed).
  worker_report& operator+=(const worker_report& o) {
    submissions += o.submissions;
    steal_attempts += o.steal_attempts;
    steals += o.steals;
    joins_suspended += o.joins_suspended;
    joins_resumed += o.joins_resumed;
    sleeps += o.sleeps;
    wakes += o.wakes;
    stacklets_allocated += o.stacklets_allocated;
    stacklets_freed += o.stacklets_freed;
    stack_bytes_allocated += o.stack_bytes_allocated;
    stack_bytes_freed += o.stack_bytes_freed;
    stack_high_water += o.stack_high_water;
    busy += o.busy;
    stealing += o.stealing;
    asleep += o.asleep;
    steals_from.resize(std::max(steals_from.size(), o.steals_from.size()));
    for (std::size_t v = 0; v < o.steals_from.size(); ++v) {
      steals_from[v] += o.steals_from[v];
    }
    return *this;
  }
};

/// Everything a stats_observer saw, one entry per worker.
struct stats_report {
  std::vector<worker_report> workers;

  /// The workers added together.
  worker_report total() const {
    worker_report sum;
    for (const worker_report& w : workers) {
      sum += w;
    }
    return sum;
  }

  /// A readable table: one row per worker and a total, then the steal matrix.
  void print(std::ostream& out) const {
    char line[256];
    const auto ms = [](std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e6; };
    const auto row = [&](const char* name, const worker_report& w) {
      std::snprintf(
          line, sizeof line, "%-7s %9.2f %9.2f %9.2f %7llu %9llu %7llu %7llu %7llu %9.1f\n", name,
          ms(w.busy), ms(w.stealing), ms(w.asleep), static_cast<unsigned long long>(w.submissions),
          static_cast<unsigned long long>(w.steal_attempts),
          static_cast<unsigned long long>(w.steals),
          static_cast<unsigned long long>(w.joins_suspended),
          static_cast<unsigned long long>(w.sleeps),
          static_cast<double>(w.stack_high_water) / 1024.0);
      out << line;
    };
    std::snprintf(line, sizeof line, "%-7s %9s %9s %9s %7s %9s %7s %7s %7s %9s\n", "worker",
                  "busy ms", "steal ms", "sleep ms", "submit", "attempts", "steals", "joins",
                  "sleeps", "stack KiB");
    out << line;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      row(std::to_string(i).c_str(), workers[i]);
    }
    row("total", total());
    out << "steals by victim (row: thief, column: victim)\n";
    out << "thief  ";
    for (std::size_t v = 0; v < workers.size(); ++v) {
      std::snprintf(line, sizeof line, " %9zu", v);
      out << line;
    }
    out << '\n';
    for (std::size_t t = 0; t < workers.size(); ++t) {
      std::snprintf(line, sizeof line, "%-7zu", t);
      out << line;
      for (std::size_t v = 0; v < workers.size(); ++v) {
        const std::uint64_t n = v < workers[t].steals_from.size() ? workers[t].steals_from[v] : 0;
        std::snprintf(line, sizeof line, " %9llu", static_cast<unsigned long long>(n));
        out << line;
      }
      out << '\n';
    }
  }

  /// print() into a string.
  std::string to_string() const {
    std::ostringstream s;
    print(s);
    return s.str();
  }
};

/// A pool observer that fills a stats_report. Give it to a pool (`tine::lazy_pool pool(n,
/// stats)`), destroy the pool, then call report(). One pool at a time: attaching to a pool (the
/// pool's constructor does it) starts from zero.
class stats_observer {
 public:
  using clock = std::chrono::steady_clock;

  stats_observer() = default;
  stats_observer(const stats_observer&) = delete;
  stats_observer& operator=(const stats_observer&) = delete;

  /// The numbers so far; call it only while no pool it observes is alive (see the file comment).
  stats_report report() const {
    stats_report r;
    r.workers.resize(m_workers);
    for (std::size_t i = 0; i < m_workers; ++i) {
      const slot& s = m_slots[i];
      worker_report& w = r.workers[i];
      w = s.counts;
      w.steals_from.assign(m_workers, 0);
      for (std::size_t v = 0; v < m_workers; ++v) {
        w.steals_from[v] = row(i)[v / 8].n[v % 8];
      }
      w.stack_high_water = static_cast<std::uint64_t>(s.high_water);
    }
    return r;
  }

  /// The number of workers of the pool last attached.
  std::size_t workers() const noexcept { return m_workers; }

  // ---- pool_observer hooks (called by the pool, each on worker w's thread) ----
  void attach(std::size_t n) {
    m_workers = n;
    m_slots = std::make_unique<slot[]>(n);
    m_lines_per_row = (n + 7) / 8;
    m_matrix = std::make_unique<line[]>(n * m_lines_per_row);
  }
  void on_worker_start(std::size_t w) noexcept { enter(m_slots[w], state::looking); }
  void on_worker_stop(std::size_t w) noexcept { enter(m_slots[w], state::none); }
  void on_steal_attempt(std::size_t w, std::size_t) noexcept { ++m_slots[w].counts.steal_attempts; }
  void on_steal(std::size_t w, std::size_t victim) noexcept {
    slot& s = m_slots[w];
    ++s.counts.steals;
    ++row(w)[victim / 8].n[victim % 8];
    enter(s, state::busy);
  }
  void on_submission(std::size_t w) noexcept {
    slot& s = m_slots[w];
    ++s.counts.submissions;
    enter(s, state::busy);
  }
  void on_work_done(std::size_t w) noexcept { enter(m_slots[w], state::looking); }
  void on_sleep(std::size_t w) noexcept {
    slot& s = m_slots[w];
    ++s.counts.sleeps;
    enter(s, state::asleep);
  }
  void on_wake(std::size_t w) noexcept {
    slot& s = m_slots[w];
    ++s.counts.wakes;
    enter(s, state::looking);
  }
  void on_join_suspend(std::size_t w) noexcept { ++m_slots[w].counts.joins_suspended; }
  void on_join_resume(std::size_t w) noexcept { ++m_slots[w].counts.joins_resumed; }
  void on_stacklet_alloc(std::size_t w, std::size_t bytes) noexcept {
    slot& s = m_slots[w];
    ++s.counts.stacklets_allocated;
    s.counts.stack_bytes_allocated += bytes;
    s.held += static_cast<std::int64_t>(bytes);
    s.high_water = std::max(s.high_water, s.held);
  }
  void on_stacklet_free(std::size_t w, std::size_t bytes) noexcept {
    slot& s = m_slots[w];
    ++s.counts.stacklets_freed;
    s.counts.stack_bytes_freed += bytes;
    s.held -= static_cast<std::int64_t>(bytes);
  }

 private:
  enum class state : unsigned char { none, looking, busy, asleep };

  struct alignas(64) slot {
    worker_report counts;   // its steals_from stays empty: the matrix is kept in m_matrix
    std::int64_t held = 0;  // may go below 0: a worker frees stacks that others allocated
    std::int64_t high_water = 0;
    state now = state::none;
    clock::time_point since{};
  };

  struct alignas(64) line {
    std::uint64_t n[8] = {};
  };

  /// Ends the current state of `s` (adding its time) and starts `next`.
  static void enter(slot& s, state next) noexcept {
    const clock::time_point t = clock::now();
    const std::chrono::nanoseconds d = t - s.since;
    switch (s.now) {
      case state::busy:
        s.counts.busy += d;
        break;
      case state::looking:
        s.counts.stealing += d;
        break;
      case state::asleep:
        s.counts.asleep += d;
        break;
      case state::none:
        break;
    }
    s.now = next;
    s.since = t;
  }

  line* row(std::size_t w) const noexcept { return &m_matrix[w * m_lines_per_row]; }

  std::size_t m_workers = 0;
  std::size_t m_lines_per_row = 0;
  std::unique_ptr<slot[]> m_slots;
  std::unique_ptr<line[]> m_matrix;  // row w (thief) on lines of its own: only w writes them
};

static_assert(pool_observer<stats_observer>);

}  // namespace tine

#endif  // TINE_SCHEDULERS_STATS_OBSERVER_HPP
