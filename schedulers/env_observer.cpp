// TINE_TRACE / TINE_STATS (env_observer.hpp): the observer, compiled once into tine's library.
#include <tine/schedulers/env_observer.hpp>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include <tine/schedulers/stats_observer.hpp>
#include <tine/schedulers/trace_observer.hpp>

namespace tine::detail {

namespace {

/// The events per worker TINE_TRACE_EVENTS asks for, or the trace_observer default when it is
/// unset; a value that is not a number of at least 2 ends the program with a message (a typo
/// would otherwise trace with a size nobody asked for).
std::size_t trace_events_from_environment() {
  const char* s = std::getenv("TINE_TRACE_EVENTS");
  if (s == nullptr || *s == '\0') {
    return std::size_t{1} << 16;
  }
  char* end = nullptr;
  const unsigned long long n = std::strtoull(s, &end, 10);
  if (*end != '\0' || n < 2 || s[0] == '-') {
    fatal("TINE_TRACE_EVENTS must be a number of events per worker, at least 2");
  }
  return static_cast<std::size_t>(n);
}

}  // namespace

std::string numbered_trace_path(const std::string& path, std::size_t index) {
  if (index == 0) {
    return path;
  }
  // Built by appending: GCC 12 at -O3 warns (-Wrestrict, a known false positive) about the
  // concatenation of temporaries with operator+.
  constexpr std::string_view json = ".json";
  const bool has_json =
      path.size() > json.size() && path.compare(path.size() - json.size(), json.size(), json) == 0;
  std::string out(path, 0, has_json ? path.size() - json.size() : path.size());
  out.append(".");
  out.append(std::to_string(index));
  if (has_json) {
    out.append(json);
  }
  return out;
}

struct env_observer::state {
  const char* pool_name;
  std::string trace_path;
  std::optional<trace_observer> trace;
  std::optional<stats_observer> stats;

  template <typename F>
  void each(F&& f) noexcept {
    if (trace) {
      f(*trace);
    }
    if (stats) {
      f(*stats);
    }
  }
};

env_observer::pointer env_observer::from_environment(const char* pool_name) {
  const char* trace = std::getenv("TINE_TRACE");
  const char* stats = std::getenv("TINE_STATS");
  const bool want_trace = trace != nullptr && *trace != '\0';
  const bool want_stats = stats != nullptr && *stats != '\0' && std::string_view(stats) != "0";
  if (!want_trace && !want_stats) {
    return nullptr;
  }
  auto s = std::make_unique<state>();
  s->pool_name = pool_name;
  if (want_trace) {
    static std::atomic<std::size_t> traced_pools{0};
    // relaxed: only a distinct number per pool is needed.
    const std::size_t index = traced_pools.fetch_add(1, std::memory_order_relaxed);
    s->trace_path = numbered_trace_path(trace, index);
    s->trace.emplace(trace_events_from_environment());
  }
  if (want_stats) {
    s->stats.emplace();
  }
  return pointer(new env_observer(std::move(s)));
}

env_observer::env_observer(std::unique_ptr<state> s) noexcept : m(std::move(s)) {}

void env_observer::deleter::operator()(env_observer* o) const noexcept { delete o; }

// Writes what was asked for. Never throws: a trace that cannot be written is reported on stderr
// (the program's own work is done by now and is not lost for it).
env_observer::~env_observer() {
  // Named once: clang-tidy's optional check cannot tell that m-> gives the same object each time.
  auto& stats = m->stats;
  auto& trace = m->trace;
  if (stats) {
    std::ostringstream out;
    out << "tine: TINE_STATS: " << m->pool_name << " of " << stats->workers() << " workers\n";
    try {
      stats->report().print(out);
    } catch (const std::exception& e) {
      out << "(no statistics: " << e.what() << ")\n";
    }
    std::cerr << out.str() << std::flush;
  }
  if (trace) {
    try {
      trace->write_chrome_trace(m->trace_path);
      if (trace->dropped_events() != 0) {
        std::cerr << "tine: TINE_TRACE: " << trace->dropped_events()
                  << " events dropped (full buffers); raise TINE_TRACE_EVENTS\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "tine: TINE_TRACE: " << e.what() << "\n";
    }
  }
}

const std::string& env_observer::trace_path() const noexcept { return m->trace_path; }

void env_observer::attach(std::size_t n) {
  auto& trace = m->trace;  // named once, as in the destructor
  auto& stats = m->stats;
  if (trace) {
    trace->attach(n);
  }
  if (stats) {
    stats->attach(n);
  }
}
void env_observer::on_worker_start(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_worker_start(w); });
}
void env_observer::on_worker_stop(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_worker_stop(w); });
}
void env_observer::on_steal_attempt(std::size_t w, std::size_t v) noexcept {
  m->each([w, v](auto& o) { o.on_steal_attempt(w, v); });
}
void env_observer::on_steal(std::size_t w, std::size_t v) noexcept {
  m->each([w, v](auto& o) { o.on_steal(w, v); });
}
void env_observer::on_submission(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_submission(w); });
}
void env_observer::on_work_done(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_work_done(w); });
}
void env_observer::on_sleep(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_sleep(w); });
}
void env_observer::on_wake(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_wake(w); });
}
void env_observer::on_join_suspend(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_join_suspend(w); });
}
void env_observer::on_join_resume(std::size_t w) noexcept {
  m->each([w](auto& o) { o.on_join_resume(w); });
}
void env_observer::on_stacklet_alloc(std::size_t w, std::size_t bytes) noexcept {
  m->each([w, bytes](auto& o) { o.on_stacklet_alloc(w, bytes); });
}
void env_observer::on_stacklet_free(std::size_t w, std::size_t bytes) noexcept {
  m->each([w, bytes](auto& o) { o.on_stacklet_free(w, bytes); });
}

}  // namespace tine::detail
