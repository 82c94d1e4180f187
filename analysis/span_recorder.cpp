#include <tine/analysis/span_recorder.hpp>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <new>

namespace tine::detail {

namespace {

double thread_cpu_seconds() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

span_recorder::span_recorder(std::uint64_t burden, bool unit, bool store) noexcept
    : m_burden(burden),
      m_unit(unit),
      m_store(store),
      m_seconds_per_tick(unit ? 1 : seconds_per_tick()),
      m_long(static_cast<std::uint64_t>(long_strand_seconds / m_seconds_per_tick)) {}

void span_recorder::start() noexcept {
  m_frames.assign(1, nullptr);
  m_last_step.assign(1, 0);
  m_steps = 0;
  m_held.clear();
  m_sites.clear();
  if (!m_store) {
    // Each run replaces the last: its chains, totals and problems alone.
    reset_chains();
    m_forks = 0;
    m_joins = 0;
    m_problems.clear();
  }
  m_check_cpu = thread_cpu_seconds();
  m_last = ticks();
  m_check = m_last;
}

void span_recorder::stop() noexcept {
  strand_ends(point::run_end);
  if (m_first_run) {
    for (const region_site& s : m_sites) {
      note(std::string("region \"") + m_totals[s.id].name + "\" never ended");
    }
  }
  if (m_store) {
    m_first_run = false;
  }
}

bool span_recorder::keep_shorter() {
  constexpr std::uint64_t shape = ~tick_mask;
  const bool same =
      m_again.size() == m_events.size() &&
      std::equal(m_events.begin(), m_events.end(), m_again.begin(),
                 [](std::uint64_t a, std::uint64_t b) { return (a & shape) == (b & shape); });
  if (same) {
    for (std::size_t i = 0; i < m_events.size(); ++i) {
      m_events[i] =
          (m_events[i] & shape) | std::min(m_events[i] & tick_mask, m_again[i] & tick_mask);
    }
  }
  m_again.clear();
  return same;
}

std::uint64_t span_recorder::on_cpu(std::uint64_t now, std::uint64_t d) noexcept {
  // The thread's time off the processor since the last check, all of it in this strand: a
  // preemption makes the strand it falls in long, and only long strands are checked.
  const double cpu = thread_cpu_seconds();
  const double off = static_cast<double>(now - m_check) * m_seconds_per_tick - (cpu - m_check_cpu);
  m_check = now;
  m_check_cpu = cpu;
  const auto off_ticks = off > 0 ? static_cast<std::uint64_t>(off / m_seconds_per_tick) : 0;
  return off_ticks < d ? d - off_ticks : 0;
}

void span_recorder::strand_ends(point p, std::uint32_t id) noexcept {
  std::uint64_t d = 1;
  if (!m_unit) {
    const std::uint64_t now = ticks();
    d = now - m_last;
    m_last = now;
    if (TINE_UNLIKELY(d > m_long)) {
      d = on_cpu(now, d);
    }
  }
  if (!m_store) {
    apply(p, id, d);
    return;
  }
  const std::uint64_t event = (static_cast<std::uint64_t>(p) << point_shift) |
                              (static_cast<std::uint64_t>(id) << id_shift) | std::min(d, tick_mask);
  try {
    (m_first_run ? m_events : m_again).push_back(event);
  } catch (const std::bad_alloc&) {
    fatal(
        "tine::analyze: out of memory storing the events of a repeated analysis (8 bytes per "
        "fork, return and join); analyze a smaller input, or run it once (repeats = 1)");
  }
}

void span_recorder::apply(point p, std::uint32_t id, std::uint64_t d) noexcept {
  m_work += d;
  m_records.back().path.extend(d);
  switch (p) {
    case point::first_fork:
      // The frame's record goes on from its caller's chain; then as any fork.
      m_records.push_back(record{m_records.back().path, {}});
      [[fallthrough]];
    case point::fork:
      m_records.push_back(record{m_records.back().path, {}});  // the child's
      return;
    case point::child_return: {
      const strand_chain ended = m_records.back().path;
      m_records.pop_back();
      record& parent = m_records.back();
      parent.children.meet(ended);
      parent.path.burdened += m_burden;  // had a thief taken the continuation
      return;
    }
    case point::join:
    case point::fork_end: {
      record& r = m_records.back();
      r.path.meet(r.children);
      r.children = {};
      return;
    }
    case point::call_end: {
      record& r = m_records.back();
      r.path.meet(r.children);  // the implicit join
      const strand_chain ended = r.path;
      m_records.pop_back();
      m_records.back().path = ended;
      return;
    }
    case point::region_begin:
      m_regions.push_back(open_region{m_work, m_records.back().path});
      return;
    case point::region_end: {
      const open_region r = m_regions.back();
      m_regions.pop_back();
      const strand_chain& now = m_records.back().path;
      region_totals& t = m_totals[id];
      ++t.count;
      t.work += m_work - r.work;
      t.span += now.span - r.path.span;
      t.burdened += now.burdened - r.path.burdened;
      return;
    }
    case point::region_drop:
      m_regions.pop_back();
      return;
    case point::run_end:
      return;
  }
}

bool span_recorder::offer(frame* parent, void* child, deque<frame*>&) {
  const bool first = m_frames.back() != parent;
  // Room first, growing geometrically: nothing below may fail once the continuation is taken.
  auto room = [](auto& v, std::size_t more) {
    if (v.capacity() < v.size() + more) {
      v.reserve(2 * v.size() + 16);
    }
  };
  room(m_frames, 2);
  room(m_last_step, 2);
  room(m_held, 1);
  if (!m_store) {
    room(m_records, 2);
  }
  strand_ends(first ? point::first_fork : point::fork);
  if (first) {
    m_frames.push_back(parent);  // a called task (or the root) forks for the first time
    m_last_step.push_back(0);
  }
  m_last_step.back() = ++m_steps;
  m_frames.push_back(frame_of(std::coroutine_handle<>::from_address(child)));
  m_last_step.push_back(0);
  // relaxed load and store: only this worker reads or writes the frame's attention (the run is
  // serial, and no exception is stored while it forks).
  parent->attention.store(parent->attention.load(std::memory_order_relaxed) | frame::observed,
                          std::memory_order_relaxed);
  m_held.push_back(parent);
  if (m_first_run) {
    ++m_forks;
  }
  return true;
}

frame* span_recorder::take_back() noexcept {
  strand_ends(point::child_return);
  m_frames.pop_back();  // the child's record: its chain is its parent's now
  m_last_step.pop_back();
  frame* parent = m_held.back();
  m_held.pop_back();
  return parent;
}

void span_recorder::observed(frame* f, bool at_end) noexcept {
  TINE_ASSERT(m_frames.back() == f, "tine::analyze: a join or end out of serial order");
  if (!at_end) {
    strand_ends(point::join);
    m_last_step.back() = ++m_steps;
    if (m_first_run) {
      ++m_joins;
    }
    if (f->kind == frame_kind::fork && !m_unit) {
      // Its end needs no event when strands are timed: all its children have joined, and its
      // record lasts until its parent takes the continuation back, so the rest of its strand is
      // timed with its return. Its end then takes the fast path, until it forks again. (Counting
      // strands, its end still ends one, as the closed forms in the docs count them.)
      f->attention.store(f->attention.load(std::memory_order_relaxed) & ~frame::observed,
                         std::memory_order_relaxed);
    }
  } else if (f->kind == frame_kind::fork) {
    strand_ends(point::fork_end);  // popped when its parent takes the continuation back
  } else {
    strand_ends(point::call_end);
    m_frames.pop_back();
    m_last_step.pop_back();
  }
}

std::uint32_t span_recorder::region_id(const char* name) {
  for (std::size_t i = 0; i < m_totals.size(); ++i) {
    if (std::strcmp(m_totals[i].name, name) == 0) {
      return static_cast<std::uint32_t>(i);
    }
  }
  if (m_totals.size() > id_mask) {
    throw std::length_error("tine::region: more than 2^20 region names in one analysis");
  }
  m_totals.push_back(region_totals{name});
  return static_cast<std::uint32_t>(m_totals.size() - 1);
}

void span_recorder::note(std::string problem) noexcept {
  try {
    m_problems.push_back(std::move(problem));
  } catch (...) {  // out of memory: the problem goes unreported, the measures stay right
  }
}

void span_recorder::region_begin(const char* name) {
  const std::uint32_t id = region_id(name);
  m_sites.reserve(m_sites.size() + 1);
  if (!m_store) {
    m_regions.reserve(m_regions.size() + 1);
  }
  strand_ends(point::region_begin, id);
  frame* f = m_frames.back();
  m_sites.push_back(region_site{id, m_frames.size(), f, m_steps, f != nullptr && f->in_scope});
}

void span_recorder::region_end(const char* name) noexcept {
  if (m_sites.empty() || std::strcmp(m_totals[m_sites.back().id].name, name) != 0) {
    if (m_first_run) {
      note(std::string("region \"") + name +
           "\" ended while another region, begun inside it, was still open");
    }
    return;
  }
  const region_site s = m_sites.back();
  m_sites.pop_back();
  frame* here = m_frames.back();
  // Whose region it is. The newest record is the one it began with: either its task had that
  // record (and forked or joined inside it if that record did since), or its task had none (a
  // called task, or the root, that had not forked yet) and forked nothing inside it, which
  // would have given it one. Or there is one record more, its task's, made by its first fork
  // inside it. A region inside which its task neither forks nor joins holds whole scopes only.
  const bool same_record = m_frames.size() == s.depth && here == s.f;
  const bool stepped_inside = same_record && m_last_step.back() > s.steps;
  const bool first_record = m_frames.size() == s.depth + 1 && m_frames[s.depth - 1] == s.f;
  const char* problem = nullptr;
  if (!same_record && !first_record) {
    problem = "ended in another task than it began";
  } else if ((stepped_inside || first_record) && here->in_scope) {
    problem = "ended with forked children not yet joined";
  } else if (stepped_inside && s.in_scope) {
    problem = "began between a fork and its join and contains that join";
  }
  if (problem != nullptr) {
    if (m_first_run) {
      note(std::string("region \"") + name + "\" " + problem +
           ": a region begins and ends in one task, around whole fork-join scopes");
    }
    strand_ends(point::region_drop, s.id);
    return;
  }
  strand_ends(point::region_end, s.id);
}

void span_recorder::reset_chains() noexcept {
  m_work = 0;
  m_records.assign(1, record{});  // (a vector's first element: its capacity was kept)
  m_regions.clear();
  for (region_totals& t : m_totals) {
    t = region_totals{t.name};
  }
}

bool span_recorder::balanced() const noexcept {
  return m_frames.size() == 1 && m_held.empty() && m_sites.empty();
}

analysis::measures span_recorder::finish(double seconds_per_tick) {
  if (m_store) {
    reset_chains();
    for (const std::uint64_t e : m_events) {
      m_records.reserve(m_records.size() + 2);
      m_regions.reserve(m_regions.size() + 1);
      apply(static_cast<point>(e >> point_shift),
            static_cast<std::uint32_t>((e >> id_shift) & id_mask), e & tick_mask);
    }
  }
  const strand_chain& root = m_records.front().path;
  const double s = seconds_per_tick;
  analysis::measures m;
  m.work = static_cast<double>(m_work) * s;
  m.span = static_cast<double>(root.span) * s;
  m.burdened_span = static_cast<double>(root.burdened) * s;
  m.steal_cost = static_cast<double>(m_burden) * s;
  m.forks = m_forks;
  m.joins = m_joins;
  m.critical_strands = root.strands;
  m.longest_strand = static_cast<double>(root.longest) * s;
  for (const region_totals& t : m_totals) {
    if (t.count != 0) {
      m.regions.push_back(region_summary{t.name, t.count, static_cast<double>(t.work) * s,
                                         static_cast<double>(t.span) * s,
                                         static_cast<double>(t.burdened) * s});
    }
  }
  m.problems = m_problems;
  return m;
}

}  // namespace tine::detail
