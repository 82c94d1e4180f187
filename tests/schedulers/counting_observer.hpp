#ifndef TINE_TESTS_SCHEDULERS_COUNTING_OBSERVER_HPP
#define TINE_TESTS_SCHEDULERS_COUNTING_OBSERVER_HPP

// A test observer that counts every event per worker and checks, as events arrive, the order a
// pool promises: start first and stop last; work (a submission or a steal) begins only while
// looking for work and ends with work_done; sleep only while looking, wake only while asleep;
// every steal follows an attempt on the same victim. Violations are counted, not asserted, so
// the test reads them on its own thread after the pool is gone.

#include <cstddef>
#include <cstdint>
#include <memory>

#include <tine/schedulers/pool_observer.hpp>

struct counts {
  std::uint64_t starts = 0, stops = 0, attempts = 0, steals = 0, submissions = 0, work_done = 0;
  std::uint64_t sleeps = 0, wakes = 0, join_suspends = 0, join_resumes = 0;
  std::uint64_t allocs = 0, frees = 0, alloc_bytes = 0, free_bytes = 0;
  std::uint64_t violations = 0;
  std::int64_t held = 0, high_water = 0;

  counts& operator+=(const counts& o) {
    starts += o.starts, stops += o.stops, attempts += o.attempts, steals += o.steals;
    submissions += o.submissions, work_done += o.work_done, sleeps += o.sleeps;
    wakes += o.wakes, join_suspends += o.join_suspends, join_resumes += o.join_resumes;
    allocs += o.allocs, frees += o.frees, alloc_bytes += o.alloc_bytes;
    free_bytes += o.free_bytes, violations += o.violations, high_water += o.high_water;
    held += o.held;
    return *this;
  }
  // Events a trace_observer records (all but steal attempts).
  std::uint64_t traced() const {
    return starts + stops + steals + submissions + work_done + sleeps + wakes + join_suspends +
           join_resumes + allocs + frees;
  }
};

class counting_observer {
 public:
  void attach(std::size_t n) {
    m_n = n;
    m_slots = std::make_unique<slot[]>(n);
    ++m_attaches;
  }
  void on_worker_start(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::before);
    ++s.c.starts;
    s.now = state::looking;
  }
  void on_worker_stop(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::looking);
    ++s.c.stops;
    s.now = state::after;
  }
  void on_steal_attempt(std::size_t w, std::size_t v) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::looking && v < m_n);
    ++s.c.attempts;
    s.attempted = v;
  }
  void on_steal(std::size_t w, std::size_t v) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::looking && s.attempted == v);
    ++s.c.steals;
    s.attempted = no_attempt;
    s.now = state::busy;
  }
  void on_submission(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::looking);
    ++s.c.submissions;
    s.now = state::busy;
  }
  void on_work_done(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::busy);
    ++s.c.work_done;
    s.now = state::looking;
  }
  void on_sleep(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::looking);
    ++s.c.sleeps;
    s.now = state::asleep;
  }
  void on_wake(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::asleep);
    ++s.c.wakes;
    s.now = state::looking;
  }
  void on_join_suspend(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::busy);
    ++s.c.join_suspends;
  }
  void on_join_resume(std::size_t w) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::busy);
    ++s.c.join_resumes;
  }
  void on_stacklet_alloc(std::size_t w, std::size_t bytes) noexcept {
    slot& s = m_slots[w];
    // Stacklets come from the heap while a worker runs tasks or reserves a spare before taking
    // work, never before start or after stop.
    check(s, s.now == state::busy || s.now == state::looking);
    ++s.c.allocs;
    s.c.alloc_bytes += bytes;
    s.c.held += static_cast<std::int64_t>(bytes);
    if (s.c.held > s.c.high_water) {
      s.c.high_water = s.c.held;
    }
  }
  void on_stacklet_free(std::size_t w, std::size_t bytes) noexcept {
    slot& s = m_slots[w];
    check(s, s.now == state::busy || s.now == state::looking);
    ++s.c.frees;
    s.c.free_bytes += bytes;
    s.c.held -= static_cast<std::int64_t>(bytes);
  }

  std::size_t workers() const { return m_n; }
  int attaches() const { return m_attaches; }
  const counts& of(std::size_t w) const { return m_slots[w].c; }
  counts total() const {
    counts t;
    for (std::size_t w = 0; w < m_n; ++w) {
      t += m_slots[w].c;
    }
    return t;
  }

 private:
  enum class state { before, looking, busy, asleep, after };
  static constexpr std::size_t no_attempt = ~std::size_t{0};

  struct alignas(64) slot {
    counts c;
    state now = state::before;
    std::size_t attempted = no_attempt;
  };

  static void check(slot& s, bool ok) noexcept {
    if (!ok) {
      ++s.c.violations;
    }
  }

  std::size_t m_n = 0;
  int m_attaches = 0;
  std::unique_ptr<slot[]> m_slots;
};

static_assert(tine::pool_observer<counting_observer>);

#endif  // TINE_TESTS_SCHEDULERS_COUNTING_OBSERVER_HPP
